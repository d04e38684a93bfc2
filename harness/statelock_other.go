//go:build !unix && !windows

package harness

import "os"

// tryLock refuses: without a lock, two processes could drive one run.
func tryLock(*os.File) (bool, error) { return false, errLockUnsupported }
