//go:build linux

package verify

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// uidLeaser hands each running sandbox a uid of its own from a range.
//
// The kernel counts RLIMIT_NPROC per uid, whatever namespace a process is
// in: checks sharing a uid share one process budget, so one check's fork
// bomb would leave another check (of another caller, or of another server
// on the host) unable to start a thread. A lease is an exclusive flock on
// the uid's file in dir: the kernel releases it when the holder closes it
// or dies, so leases are exclusive across every server on the host that
// uses the same directory, and none outlives its process.
type uidLeaser struct {
	dir          string
	first, count int
	poll         time.Duration
}

// errNoUID says every uid of the range was leased until ctx ended.
var errNoUID = errors.New("every sandbox uid is in use by other checks")

// lease returns a uid no other sandbox holds, and the function that gives
// it back; it waits while every uid of the range is held.
func (l *uidLeaser) lease(ctx context.Context) (int, func(), error) {
	if err := privateDir(l.dir); err != nil {
		return 0, nil, err
	}
	for {
		// A random start spreads leases over the range, so that a uid
		// just given back (whose last processes the kernel may still be
		// reaping) is rarely the next one taken.
		start := rand.IntN(l.count)
		for i := range l.count {
			uid := l.first + (start+i)%l.count
			release, err := l.tryLease(uid)
			if err != nil {
				return 0, nil, err
			}
			if release != nil {
				return uid, release, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, nil, fmt.Errorf("%w: %w", errNoUID, context.Cause(ctx))
		case <-time.After(l.poll):
		}
	}
}

// tryLease takes uid's lock if it is free; it returns a nil release when
// another holder has it.
func (l *uidLeaser) tryLease(uid int) (func(), error) {
	path := filepath.Join(l.dir, strconv.Itoa(uid))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the lease of sandbox uid %d: %w", uid, err)
	}
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		f.Close()
		return nil, nil
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the lease of sandbox uid %d: %w", uid, err)
	}
	return func() { f.Close() }, nil
}

// privateDir makes dir, or accepts it when it already is a directory of
// this process's uid that nobody else may enter: it usually lives in a
// shared temporary directory, where another user could have made it first.
func privateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("making the sandbox uid leases' directory: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return fmt.Errorf("the sandbox uid leases' directory: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return fmt.Errorf("the sandbox uid leases' directory %s is not a private directory of uid %d; remove it or set another", dir, os.Geteuid())
	}
	return nil
}
