//go:build unix

package client

import "syscall"

func newProcessGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func (p *process) signalGroup(sig syscall.Signal) {
	// The group id is the leader's pid. Until every member is gone the kernel
	// does not reuse it, so this cannot reach an unrelated process.
	syscall.Kill(-p.cmd.Process.Pid, sig)
}
