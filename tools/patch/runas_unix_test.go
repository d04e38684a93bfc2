//go:build unix

package patch_test

import (
	"os/exec"
	"syscall"
)

// runAs has cmd run as user and group uid.
func runAs(cmd *exec.Cmd, uid uint32) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
}
