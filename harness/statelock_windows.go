//go:build windows

package harness

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock locks one byte of f far past its content without waiting (a
// locked range cannot be read, and the holder's line must stay readable);
// false means another handle holds it.
func tryLock(f *os.File) (bool, error) {
	ol := &windows.Overlapped{OffsetHigh: 1}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}
