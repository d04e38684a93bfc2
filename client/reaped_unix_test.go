//go:build unix

package client_test

import (
	"errors"
	"syscall"
	"testing"
)

// checkReaped checks that the server (pid, when known), its process
// group and every other child of this process are gone and reaped.
func checkReaped(t *testing.T, pid int) {
	t.Helper()
	if pid != 0 {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server pid %d still exists (kill 0: %v): not reaped", pid, err)
		}
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server process group %d still has members (kill 0: %v)", pid, err)
		}
	}
	// ECHILD: this process has no children left, running or zombie.
	if pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); !errors.Is(err, syscall.ECHILD) {
		t.Errorf("a child process remains (wait4: pid %d, %v)", pid, err)
	}
}
