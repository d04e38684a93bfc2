package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// stdio is the transport to a server process: newline-delimited JSON on its
// stdin and stdout, its stderr drained into a ring.
type stdio struct {
	c      *Conn
	proc   *process
	stderr *stderrRing

	writeMu  sync.Mutex
	writeErr error // once set, stdin is unusable; guarded by writeMu

	readerDone chan struct{} // the stdout reader has ended and failed every pending request
	stderrDone chan struct{}
	waiterDone chan struct{}
	closing    atomic.Bool
}

// startStdio starts the goroutines that read the process's stdout and stderr
// and reap it.
func startStdio(c *Conn, proc *process) *stdio {
	s := &stdio{
		c:          c,
		proc:       proc,
		stderr:     newStderrRing(c.opts.Limits.StderrLine, c.opts.Limits.StderrBytes),
		readerDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		waiterDone: make(chan struct{}),
	}
	if err := growPipe(proc.stdout); err != nil {
		c.log.Debug("mcp answer pipe keeps its default size", "err", err)
	}
	go s.readLoop()
	go func() {
		defer close(s.stderrDone)
		s.stderr.drain(proc.stderr)
	}()
	go s.watchExit()
	return s
}

func (s *stdio) pid() int                { return s.proc.cmd.Process.Pid }
func (s *stdio) stderrRing() *stderrRing { return s.stderr }

func (s *stdio) send(ctx context.Context, m outgoing) (bool, error) {
	return s.writeFrame(ctx, m.line)
}

// close stops the server; see Conn.Close.
func (s *stdio) close() error {
	s.closing.Store(true)
	var err error
	if sig := s.proc.stop(s.c.opts.Timeouts.CloseGrace, s.c.opts.Timeouts.TermGrace); sig != "" {
		err = fmt.Errorf("client: server did not exit after stdin closed; sent %s", sig)
	}
	<-s.waiterDone
	<-s.readerDone
	<-s.stderrDone
	s.proc.stdout.Close()
	s.proc.stderr.Close()
	return err
}

// watchExit reaps the process as soon as it exits, then gives the readers
// Timeouts.ExitWait to drain the pipes before closing them, in case something
// outside the process group still holds them open.
func (s *stdio) watchExit() {
	defer close(s.waiterDone)
	s.proc.wait()
	t := time.NewTimer(s.c.opts.Timeouts.ExitWait)
	defer t.Stop()
	for _, r := range []struct {
		done <-chan struct{}
		f    *os.File
	}{{s.readerDone, s.proc.stdout}, {s.stderrDone, s.proc.stderr}} {
		select {
		case <-r.done:
		case <-t.C:
			t.Reset(0)
			r.f.Close()
		}
	}
}

// readLoop reads frames until stdout ends, then fails every pending request.
func (s *stdio) readLoop() {
	defer close(s.readerDone)
	fr := newFrameReader(s.proc.stdout, s.c.opts.Limits.FrameBytes, s.c.opts.Limits.OversizedKeep, s.c.frames)
	for {
		f, err := fr.next()
		if err != nil {
			s.connectionLost(s.lostReason(err))
			return
		}
		s.c.handleFrame(f)
	}
}

func (s *stdio) lostReason(err error) string {
	switch {
	case s.closing.Load():
		return "closed by client"
	case errors.Is(err, io.EOF):
		return "server closed stdout"
	case errors.Is(err, os.ErrClosed):
		return "stdout still open after the server exited"
	}
	return "reading stdout: " + err.Error()
}

// connectionLost records how the connection ended and ends every pending
// request with it. It waits at most Timeouts.ExitWait for the exit status.
func (s *stdio) connectionLost(reason string) {
	exitWait := s.c.opts.Timeouts.ExitWait
	exited := waitOrTimeout(s.proc.exited, exitWait)
	l := &Lost{Reason: reason, Exited: exited, ExitCode: -1}
	if exited {
		waitOrTimeout(s.stderrDone, exitWait) // its last words
		l.ExitStatus, l.ExitCode = s.proc.exitStatus()
	}
	l.Stderr = s.stderr.tail()
	s.c.lose(l)
}

// writeFrame writes one line to the server's stdin within the context's
// deadline and Timeouts.Write. sent reports whether the server can have
// received the whole message even though err is set.
func (s *stdio) writeFrame(ctx context.Context, line []byte) (sent bool, err error) {
	line = append(line, '\n')
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.writeErr != nil {
		return false, s.writeErr
	}
	deadline := time.Now().Add(s.c.opts.Timeouts.Write)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	s.proc.stdin.SetWriteDeadline(deadline)
	n, err := s.proc.stdin.Write(line)
	if err == nil || n == 0 {
		return false, err
	}
	// Part of the line went out: later frames would be glued to it, so stdin
	// is closed. Without its newline the message is lost unless everything but
	// the newline was written (a reader may accept a last line at EOF).
	s.writeErr = fmt.Errorf("client: stdin closed after a partial frame (%d of %d bytes): %w", n, len(line), err)
	s.proc.stdin.Close()
	return n == len(line)-1, s.writeErr
}
