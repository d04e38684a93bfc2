package client

import (
	"syscall"

	"golang.org/x/sys/windows"
)

func newProcessGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup ends the server: Windows has no signal one process can send
// another to ask it to stop, and no kill of a process group, so every
// signal is TerminateProcess on the server alone.
func (p *process) signalGroup(syscall.Signal) { p.cmd.Process.Kill() }
