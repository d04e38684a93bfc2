package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is a connection to one stdio MCP server process. Its methods are safe
// for concurrent use; requests are answered in any order.
type Conn struct {
	opts   Options
	log    *slog.Logger
	proc   *process
	stderr *stderrRing
	stats  counters

	nextID atomic.Int64

	writeMu  sync.Mutex
	writeErr error // once set, stdin is unusable; guarded by writeMu

	mu      sync.Mutex
	pending map[int64]*pending // nil once the connection is lost
	lost    *Lost

	readerDone chan struct{} // the stdout reader has ended and failed every pending request
	stderrDone chan struct{}
	waiterDone chan struct{}
	closing    atomic.Bool
	closeOnce  sync.Once
	closeErr   error

	server ServerInfo
	meta   json.RawMessage // modern per-request _meta; nil in the legacy era
}

type pending struct {
	reply chan reply // buffered: the single sender never blocks
}

// reply is what ended a pending request; exactly one field is set, or none
// for a result.
type reply struct {
	result    answer
	rpcErr    *RPCErrorObject
	oversized *frame
	lost      *Lost
}

// answer is a result as the reader read it. It owns its bytes: the frame
// buffer they came from is never reused.
type answer struct {
	raw  json.RawMessage
	call *callResult // raw read as a tools/call result
}

// Start launches the server, runs the handshake (see Options.Era), and returns
// a ready connection. ctx bounds the handshake only; the server runs until
// Close. On failure the process is stopped and reaped, and the
// error (a *CallError when a handshake request failed) says why.
func Start(ctx context.Context, cmd Command, opts Options) (*Conn, error) {
	opts = opts.withDefaults()
	proc, err := launch(cmd)
	if err != nil {
		return nil, err
	}
	c := &Conn{
		opts:       opts,
		log:        opts.Logger.With("server", cmd.Path, "pid", proc.cmd.Process.Pid),
		proc:       proc,
		stderr:     newStderrRing(opts.Limits.StderrLine, opts.Limits.StderrBytes),
		pending:    make(map[int64]*pending),
		readerDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		waiterDone: make(chan struct{}),
	}
	go c.readLoop()
	go func() {
		defer close(c.stderrDone)
		c.stderr.drain(proc.stderr)
	}()
	go c.watchExit()
	if err := c.handshake(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Server describes the server as the handshake found it.
func (c *Conn) Server() ServerInfo { return c.server }

// Stderr returns the newest lines the server wrote to stderr, within
// Limits.StderrBytes.
func (c *Conn) Stderr() string { return c.stderr.tail() }

// Done is closed when the connection is lost: the server's stdout ended.
func (c *Conn) Done() <-chan struct{} { return c.readerDone }

// Lost describes how the connection ended, or returns nil while it is alive.
func (c *Conn) Lost() *Lost {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// Close stops the server: it closes stdin, waits Timeouts.CloseGrace, sends
// SIGTERM to the process group, waits Timeouts.TermGrace, sends SIGKILL, and
// reaps it. Requests still in flight end ConnectionLost. Close returns an
// error when the server had to be signalled because it ignored the end of stdin.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		if sig := c.proc.stop(c.opts.Timeouts.CloseGrace, c.opts.Timeouts.TermGrace); sig != "" {
			c.closeErr = fmt.Errorf("client: server did not exit after stdin closed; sent %s", sig)
		}
		<-c.waiterDone
		<-c.readerDone
		<-c.stderrDone
		c.proc.stdout.Close()
		c.proc.stderr.Close()
	})
	return c.closeErr
}

// watchExit reaps the process as soon as it exits, then gives the readers
// Timeouts.ExitWait to drain the pipes before closing them, in case something
// outside the process group still holds them open.
func (c *Conn) watchExit() {
	defer close(c.waiterDone)
	c.proc.wait()
	t := time.NewTimer(c.opts.Timeouts.ExitWait)
	defer t.Stop()
	for _, r := range []struct {
		done <-chan struct{}
		f    *os.File
	}{{c.readerDone, c.proc.stdout}, {c.stderrDone, c.proc.stderr}} {
		select {
		case <-r.done:
		case <-t.C:
			t.Reset(0)
			r.f.Close()
		}
	}
}

// readLoop reads frames until stdout ends, then fails every pending request.
func (c *Conn) readLoop() {
	defer close(c.readerDone)
	fr := newFrameReader(c.proc.stdout, c.opts.Limits.FrameBytes, c.opts.Limits.OversizedKeep)
	for {
		f, err := fr.next()
		if err != nil {
			c.connectionLost(c.lostReason(err))
			return
		}
		c.handleFrame(f)
	}
}

func (c *Conn) lostReason(err error) string {
	switch {
	case c.closing.Load():
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
func (c *Conn) connectionLost(reason string) {
	exited := waitOrTimeout(c.proc.exited, c.opts.Timeouts.ExitWait)
	l := &Lost{Reason: reason, Exited: exited, ExitCode: -1}
	if exited {
		waitOrTimeout(c.stderrDone, c.opts.Timeouts.ExitWait) // its last words
		l.ExitStatus, l.ExitCode = c.proc.exitStatus()
	}
	l.Stderr = c.stderr.tail()
	c.mu.Lock()
	c.lost = l
	inflight := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, p := range inflight {
		p.reply <- reply{lost: l}
	}
	c.log.Info("mcp connection lost", "reason", reason, "exit", l.ExitStatus, "inflight", len(inflight))
}

func waitOrTimeout(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// register adds a pending request, or returns how the connection was lost.
func (c *Conn) register(id int64, p *pending) *Lost {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost != nil {
		return c.lost
	}
	c.pending[id] = p
	return nil
}

// take removes and returns the pending request with id, or nil.
func (c *Conn) take(id int64) *pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pending[id]
	delete(c.pending, id)
	return p
}

// roundTrip sends one request, waits for what ends it, and hands a result to
// decode. It returns nil or a *CallError.
func (c *Conn) roundTrip(ctx context.Context, timeout time.Duration, method string, params any, decode func(answer) error) error {
	id := c.nextID.Add(1)
	ce := &CallError{Method: method, ID: id, Outcome: NotSent, stderrTail: c.opts.Limits.ErrorStderrTail}
	line, err := json.Marshal(request{JSONRPC: "2.0", ID: &id, Method: method, Params: params})
	if err != nil {
		ce.Err = err
		return ce
	}
	if err := ctx.Err(); err != nil {
		ce.Err = err
		return ce
	}
	p := &pending{reply: make(chan reply, 1)}
	if lost := c.register(id, p); lost != nil {
		ce.Lost = lost
		return ce
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if sent, err := c.writeFrame(ctx, line); err != nil {
		c.take(id)
		if sent {
			ce.Outcome = ConnectionLost
		}
		ce.Err = err
		ce.Lost = c.Lost()
		return ce
	}
	select {
	case r := <-p.reply:
		return c.settle(ce, r, decode)
	case <-ctx.Done():
	}
	if c.take(id) == nil {
		// An answer (or the end of the connection) won the race: report it.
		return c.settle(ce, <-p.reply, decode)
	}
	ce.Outcome, ce.Err = Cancelled, ctx.Err()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		ce.Outcome = TimedOut
	}
	if method != methodInitialize && method != methodDiscover {
		c.notifyCancelled(id, ce.Outcome.String())
	}
	return ce
}

func (c *Conn) settle(ce *CallError, r reply, decode func(answer) error) error {
	switch {
	case r.lost != nil:
		ce.Outcome, ce.Lost = ConnectionLost, r.lost
	case r.oversized != nil:
		ce.Outcome, ce.Head, ce.Size = Oversized, r.oversized.head, r.oversized.size
	case r.rpcErr != nil:
		ce.Outcome, ce.RPC = RPCError, r.rpcErr
	default:
		err := decode(r.result)
		if err == nil {
			return nil
		}
		ce.Outcome, ce.Err = BadResult, err
		raw := r.result.raw
		ce.Head, ce.Size = raw[:min(len(raw), c.opts.Limits.OversizedKeep)], int64(len(raw))
	}
	return ce
}

// notifyCancelled tells the server, as best effort, that the client stopped
// waiting for id. The server may have finished or may go on regardless.
func (c *Conn) notifyCancelled(id int64, reason string) {
	params := map[string]any{"requestId": id, "reason": reason}
	line, _ := json.Marshal(request{JSONRPC: "2.0", Method: "notifications/cancelled", Params: params})
	ctx, cancel := context.WithTimeout(context.Background(), min(c.opts.Timeouts.Write, 500*time.Millisecond))
	defer cancel()
	if _, err := c.writeFrame(ctx, line); err != nil {
		c.log.Debug("mcp cancel notification not sent", "id", id, "err", err)
	}
}

// writeFrame writes one line to the server's stdin within the context's
// deadline and Timeouts.Write. sent reports whether the server can have
// received the whole message even though err is set.
func (c *Conn) writeFrame(ctx context.Context, line []byte) (sent bool, err error) {
	line = append(line, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.writeErr != nil {
		return false, c.writeErr
	}
	deadline := time.Now().Add(c.opts.Timeouts.Write)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.proc.stdin.SetWriteDeadline(deadline)
	n, err := c.proc.stdin.Write(line)
	if err == nil || n == 0 {
		return false, err
	}
	// Part of the line went out: later frames would be glued to it, so stdin
	// is closed. Without its newline the message is lost unless everything but
	// the newline was written (a reader may accept a last line at EOF).
	c.writeErr = fmt.Errorf("client: stdin closed after a partial frame (%d of %d bytes): %w", n, len(line), err)
	c.proc.stdin.Close()
	return n == len(line)-1, c.writeErr
}

// PID is the server's process id (and process group id).
func (c *Conn) PID() int { return c.proc.cmd.Process.Pid }
