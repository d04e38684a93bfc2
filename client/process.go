package client

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// process is a launched stdio server: its own process group, three pipes, and
// a waiter that reaps it as soon as it exits.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end; supports write deadlines
	stdout *os.File // read end
	stderr *os.File // read end

	exited chan struct{} // closed once the process is reaped
	state  *os.ProcessState
}

// launch starts c in a new process group. The pipe ends given to the child are
// closed in the parent, so the parent sees EOF when every holder has exited.
func launch(c Command) (*process, error) {
	if c.Path == "" {
		return nil, errors.New("client: Command.Path is empty")
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.environ()
	cmd.SysProcAttr = newProcessGroup()

	var pipes [3][2]*os.File // [stdin, stdout, stderr][read, write]
	closeAll := func() {
		for _, p := range pipes {
			for _, f := range p {
				if f != nil {
					f.Close()
				}
			}
		}
	}
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("client: pipe: %w", err)
		}
		pipes[i] = [2]*os.File{r, w}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes[0][0], pipes[1][1], pipes[2][1]
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("client: start %s: %w", c.Path, err)
	}
	pipes[0][0].Close()
	pipes[1][1].Close()
	pipes[2][1].Close()
	p := &process{
		cmd:    cmd,
		stdin:  pipes[0][1],
		stdout: pipes[1][0],
		stderr: pipes[2][0],
		exited: make(chan struct{}),
	}
	return p, nil
}

// wait reaps the process, then kills what is left of its group (children
// that would otherwise hold stdout open), then closes exited.
func (p *process) wait() {
	p.cmd.Wait() // the error is in ProcessState
	p.state = p.cmd.ProcessState
	p.signalGroup(syscall.SIGKILL)
	close(p.exited)
}

// stop shuts the server down: close stdin (the graceful signal), wait, SIGTERM
// the group, wait, SIGKILL the group, and wait until it is reaped. It returns
// the signal that had to be sent, or "" if closing stdin was enough.
func (p *process) stop(grace, termGrace time.Duration) string {
	p.stdin.Close()
	if p.waitExit(grace) {
		return ""
	}
	p.signalGroup(syscall.SIGTERM)
	if p.waitExit(termGrace) {
		return "SIGTERM"
	}
	p.signalGroup(syscall.SIGKILL)
	<-p.exited
	return "SIGKILL"
}

func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitStatus describes how the process ended; call after exited is closed.
func (p *process) exitStatus() (string, int) {
	if p.state == nil {
		return "", -1
	}
	return p.state.String(), p.state.ExitCode()
}
