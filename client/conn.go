package client

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/bufpool"
)

// Conn is a connection to one MCP server: a stdio server process (Start)
// or a Streamable HTTP endpoint (Dial). Its methods are safe for concurrent
// use; requests are answered in any order.
type Conn struct {
	opts  Options
	log   *slog.Logger
	t     transport
	stats counters

	nextID atomic.Int64

	mu        sync.Mutex
	pending   map[int64]*pending // nil once the connection is lost
	abandoned abandonedIDs       // requests the client stopped waiting for
	lost      *Lost
	done      chan struct{} // closed once lost is set and every pending request failed

	closeOnce sync.Once
	closeErr  error

	server   ServerInfo
	meta     json.RawMessage // modern per-request _meta; nil in the legacy era
	overHTTP bool            // the transport is Streamable HTTP
	era      atomic.Pointer[era]

	// frames gives the stdio reader the buffers of large frames, and takes
	// them back from the results read into them (Result.Release).
	frames *bufpool.Pool

	marksMu sync.Mutex
	marks   map[string][]paramHeader // x-mcp-header marks by tool, from the last tools/list (HTTP)
}

// A transport carries messages between the client and one server: the
// process's pipes (stdio) or HTTP requests (Streamable HTTP).
type transport interface {
	// send delivers one message. For a request (m.id != 0) what ends it
	// reaches its pending entry later: the stdio reader routes the answer,
	// and the HTTP transport reads it from the POST's response. sent reports,
	// when err is set, whether the server can have received the message.
	send(ctx context.Context, m outgoing) (sent bool, err error)
	// close ends the transport; it returns once every goroutine it started
	// has ended and the connection is lost.
	close() error
	// pid is the server's process id, or 0 when there is no process.
	pid() int
	// stderr is the process's stderr ring, or nil.
	stderrRing() *stderrRing
}

// outgoing is one message to send, with what the HTTP transport mirrors
// into headers.
type outgoing struct {
	id      int64             // the request's id; 0 for a notification or a response
	method  string            // empty for a response to a server request
	name    string            // tools/call: the tool's name (Mcp-Name)
	line    []byte            // the JSON text, without a newline
	version string            // the protocol version the message is sent at; "" before initialize
	modern  bool              // 2026-07-28: the per-request headers are sent
	params  map[string]string // tools/call, modern HTTP: the Mcp-Param-* headers
}

type pending struct {
	reply chan reply // buffered: the single sender never blocks
}

// reply is what ended a pending request; exactly one field is set, or none
// for a result.
type reply struct {
	result    answer
	rpcErr    *RPCErrorObject
	frame     []byte // a large answer the reader handed off undecoded (handOff)
	oversized *frame
	lost      *Lost
	fail      *failure
}

// failure ends a request that got no JSON-RPC answer for a reason its
// transport knows (an HTTP status, a cut stream).
type failure struct {
	outcome Outcome
	err     error
	head    []byte
	size    int64
	lost    *Lost
}

// answer is a result as the reader read it. It owns its bytes: the frame
// buffer they came from is never reused, unless the Result made from them
// gives it back (Result.Release).
type answer struct {
	raw  json.RawMessage
	call *callResult // raw read as a tools/call result
	buf  []byte      // the frame buffer raw is in, from Conn.frames; nil when it is not from there
}

// keptFrames and maxKeptFrame bound what a connection keeps of the large
// frame buffers its results gave back: two, one being read into while the
// caller reads the other, of up to 4 MiB (a read_file page is 1.2 MiB).
const (
	keptFrames   = 2
	maxKeptFrame = 4 << 20
)

func newConn(opts Options, log *slog.Logger) *Conn {
	return &Conn{
		opts:    opts,
		log:     log,
		pending: make(map[int64]*pending),
		done:    make(chan struct{}),
		frames:  bufpool.New(keptFrames, min(opts.Limits.FrameBytes, maxKeptFrame)),
	}
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
	c := newConn(opts, opts.Logger.With("server", cmd.Path, "pid", proc.cmd.Process.Pid))
	c.t = startStdio(c, proc)
	if err := c.handshake(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Server describes the server as the handshake found it.
func (c *Conn) Server() ServerInfo { return c.server }

// Stderr returns the newest lines the server wrote to stderr, within
// Limits.StderrBytes. A server reached over HTTP has no stderr: "".
func (c *Conn) Stderr() string {
	if r := c.t.stderrRing(); r != nil {
		return r.tail()
	}
	return ""
}

// Done is closed when the connection is lost: the server's stdout ended, an
// HTTP session ended (404), or Close was called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Lost describes how the connection ended, or returns nil while it is alive.
func (c *Conn) Lost() *Lost {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// Close ends the connection. Requests still in flight end ConnectionLost.
//
// For a process, it closes stdin, waits Timeouts.CloseGrace, sends SIGTERM to
// the process group, waits Timeouts.TermGrace, sends SIGKILL, and reaps it; it
// returns an error when the server had to be signalled because it ignored the
// end of stdin. Over HTTP, it aborts the requests in flight and ends a legacy
// session with DELETE; it returns an error when the server refused the DELETE
// other than with 404 or 405.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.t.close() })
	return c.closeErr
}

// PID is the server's process id (and process group id), or 0 for a server
// reached over HTTP.
func (c *Conn) PID() int { return c.t.pid() }

// lose records how the connection ended and ends every pending request with
// it. Only the first call counts.
func (c *Conn) lose(l *Lost) {
	c.mu.Lock()
	if c.lost != nil {
		c.mu.Unlock()
		return
	}
	c.lost = l
	inflight := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, p := range inflight {
		p.reply <- reply{lost: l}
	}
	close(c.done)
	c.log.Info("mcp connection lost", "reason", l.Reason, "exit", l.ExitStatus, "inflight", len(inflight))
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

// abandon remembers that the client stopped waiting for id, so that an
// answer arriving later is told apart from one to a request never sent.
func (c *Conn) abandon(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.abandoned.add(id)
}

// wasAbandoned reports whether id is a request the client stopped waiting
// for, and forgets it: a second answer to it is unknown.
func (c *Conn) wasAbandoned(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.abandoned.remove(id)
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
	out := c.outgoing(id, method, params, line)
	if sent, err := c.t.send(ctx, out); err != nil {
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
	c.abandon(id)
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
	if r.frame != nil {
		r = c.decodeAnswer(ce.ID, r.frame)
	}
	switch {
	case r.fail != nil:
		f := r.fail
		ce.Outcome, ce.Err, ce.Head, ce.Size, ce.Lost = f.outcome, f.err, f.head, f.size, f.lost
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
// Over HTTP in the modern era, aborting the request's POST was the
// cancellation, and no notification is expected (2026-07-28 Streamable HTTP,
// Cancellation).
func (c *Conn) notifyCancelled(id int64, reason string) {
	if e := c.era.Load(); c.overHTTP && e != nil && e.modern {
		return
	}
	params := map[string]any{"requestId": id, "reason": reason}
	line, _ := json.Marshal(request{JSONRPC: "2.0", Method: "notifications/cancelled", Params: params})
	ctx, cancel := context.WithTimeout(context.Background(), min(c.opts.Timeouts.Write, 500*time.Millisecond))
	defer cancel()
	if _, err := c.t.send(ctx, c.outgoing(0, "notifications/cancelled", nil, line)); err != nil {
		c.log.Debug("mcp cancel notification not sent", "id", id, "err", err)
	}
}

// outgoing describes a message for the transport: its id, method and, for
// tools/call, tool name, and the protocol version it is sent at.
func (c *Conn) outgoing(id int64, method string, params any, line []byte) outgoing {
	m := outgoing{id: id, method: method, line: line}
	if p, ok := params.(callParams); ok {
		m.name, m.params = p.Name, p.headers
	}
	if method == methodDiscover {
		m.version, m.modern = ModernVersion, true
	} else if e := c.era.Load(); e != nil {
		m.version, m.modern = e.version, e.modern
	}
	return m
}

// era is what the handshake settled, as the transport needs it; the reader
// reads it while the handshake may still be writing it.
type era struct {
	version string
	modern  bool
}
