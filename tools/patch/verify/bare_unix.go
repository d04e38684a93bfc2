//go:build unix

package verify

import (
	"os/exec"
	"syscall"
)

// bareProcAttr puts an unsandboxed check in its own process group, all
// of which is killed at the deadline.
func bareProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
