package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// RefLockStale is how long this process must see the same ref lock file
// before it takes the file for one its writer left when it died. A writer
// holds a ref's lock for one small write and an fsync, so a lock that
// stays for this long belongs to a process killed while holding it (a
// replica of a fleet killed by its orchestrator, say); without breaking
// it, every later write of the ref would fail as locked for good.
//
// The age is counted on this process's monotonic clock from when it first
// saw the file, not from the file's time stamp: replicas sharing a
// repository over a network file system may disagree about the time, and
// breaking a live writer's lock would let its rename publish someone
// else's file.
const RefLockStale = 30 * time.Second

// lockWatch remembers the lock files a process found in its way and when
// it first saw each.
type lockWatch struct {
	mu    sync.Mutex
	seen  map[string]seenLock // by lock path
	now   func() time.Time    // the clock; tests move it
	moved atomic.Int64        // names of files moved aside
}

type seenLock struct {
	info  os.FileInfo
	first time.Time
}

func newLockWatch() *lockWatch {
	return &lockWatch{seen: map[string]seenLock{}, now: time.Now}
}

// stale reports whether the lock file at path, described by info, is the
// one this process has seen there for RefLockStale or more.
func (lw *lockWatch) stale(path string, info os.FileInfo) bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	now := lw.now()
	s, ok := lw.seen[path]
	if !ok || !os.SameFile(s.info, info) || !s.info.ModTime().Equal(info.ModTime()) {
		if len(lw.seen) >= intentWatchSweep {
			for p, old := range lw.seen {
				if now.Sub(old.first) > 2*RefLockStale {
					delete(lw.seen, p)
				}
			}
		}
		lw.seen[path] = seenLock{info: info, first: now}
		return false
	}
	return now.Sub(s.first) >= RefLockStale
}

func (lw *lockWatch) forget(path string) {
	lw.mu.Lock()
	delete(lw.seen, path)
	lw.mu.Unlock()
}

// lockFile takes git's lock on file: file.lock, created exclusively. A
// lock someone else holds is ErrRefLocked, unless it is stale (see
// RefLockStale): then it is moved aside and taken.
func (w *Workspace) lockFile(file string) (*os.File, error) {
	path := file + ".lock"
	lock, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) && w.breakStaleLock(path) {
		lock, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if errors.Is(err, fs.ErrExist) {
		return nil, ErrRefLocked
	}
	if err != nil {
		return nil, w.internalError("locking a ref", err)
	}
	return lock, nil
}

// breakStaleLock moves the lock file at path out of the refs if it is
// stale, and reports whether it did. It renames rather than removes, then
// checks that what it moved is the file it judged: two processes breaking
// the same lock at once could otherwise take the fresh lock one of them
// has just created. A fresh lock moved by mistake is put back.
func (w *Workspace) breakStaleLock(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !w.locks.stale(path, info) {
		return errors.Is(err, fs.ErrNotExist) // gone meanwhile: try again
	}
	// Out of refs/, so that git never lists it as a ref, on the same file system.
	aside := filepath.Join(w.refsDir(), fmt.Sprintf("repo-mcp-stale-lock-%d-%d", os.Getpid(), w.locks.moved.Add(1)))
	if err := os.Rename(path, aside); err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	defer os.Remove(aside)
	moved, err := os.Stat(aside)
	if err != nil || !os.SameFile(info, moved) {
		// Another process broke it and took the lock meanwhile: give it
		// back (Link fails if a third has taken it since; the owner's
		// rename then fails, which fails its write, and corrupts nothing).
		os.Link(aside, path)
		return false
	}
	w.locks.forget(path)
	return true
}

// lockHeld reports whether the file at lock's path is still lock: a
// writer stalled for longer than RefLockStale may have had its lock taken,
// and renaming by path would then publish the taker's file as the ref.
func lockHeld(lock *os.File) bool {
	mine, err := lock.Stat()
	if err != nil {
		return false
	}
	there, err := os.Stat(lock.Name())
	return err == nil && os.SameFile(mine, there)
}

// releaseLock closes lock and removes its file, unless another process
// took the lock meanwhile (see lockHeld).
func releaseLock(lock *os.File) {
	held := lockHeld(lock)
	lock.Close()
	if held {
		os.Remove(lock.Name())
	}
}
