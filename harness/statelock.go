package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StateLockedError means another process holds the state directory: two
// harnesses on one directory would both drive its runs, sending a call
// twice and numbering events twice.
type StateLockedError struct {
	Dir    string
	Holder string // "pid 123 on host h since 2026-01-02T03:04:05Z", as the holder wrote it
}

func (e *StateLockedError) Error() string {
	holder := e.Holder
	if holder == "" {
		holder = "a process that has not yet said who it is"
	}
	return fmt.Sprintf("harness: the state directory %s is in use by %s; stop it, or give this one another --state", e.Dir, holder)
}

// lockFileName is the file in the state directory that the lock is taken on.
const lockFileName = "lock"

// lockState takes the state directory's lock for this process, or returns a
// *StateLockedError naming the holder. The kernel releases the lock when
// the process ends, however it ends, so a harness killed with SIGKILL
// leaves nothing to clean up. Release closes the returned file.
func lockState(dir string) (*os.File, error) {
	name := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("harness: state lock: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("harness: state lock %s: %w", name, err)
	}
	if !held {
		b, _ := io.ReadAll(io.LimitReader(f, 512))
		f.Close()
		return nil, &StateLockedError{Dir: dir, Holder: strings.TrimSpace(string(b))}
	}
	host, _ := os.Hostname()
	holder := fmt.Sprintf("pid %d on host %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := writeHolder(f, holder); err != nil {
		f.Close()
		return nil, fmt.Errorf("harness: state lock %s: %w", name, err)
	}
	return f, nil
}

func writeHolder(f *os.File, holder string) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(holder), 0)
	return err
}

// errLockUnsupported: this platform offers no lock the harness can rely on.
var errLockUnsupported = errors.New("this platform has no file lock the harness can use")
