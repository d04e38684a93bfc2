package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/repo-mcp/repo-mcp/internal/bufpool"
)

// frameConn is an mcp.Connection over newline-delimited JSON that stands in
// front of go-sdk: it reads frames itself and hands the engine only
// well-formed JSON-RPC messages. A line that is not JSON is answered with
// -32700, one that is not a JSON-RPC message with -32600, an oversized one
// with -32600 naming the bound (and its id when the first bytes show it);
// and the connection keeps serving. go-sdk's own reader would end the
// session on any of these.
type frameConn struct {
	out      io.Writer
	maxFrame int
	log      *slog.Logger
	// grace bounds how long, after the input ends, in-flight calls may
	// take to answer before the connection closes and cancels them.
	grace time.Duration

	incoming chan jsonrpc.Message
	readErr  error // set before incoming is closed
	done     chan struct{}
	once     sync.Once

	// wmu serializes writes to out and is held for nothing else: while a
	// large answer goes out, as fast as the client reads it, requests are
	// still read and admitted and other calls still finish, so that a
	// small answer waits for that one frame and nothing more.
	wmu sync.Mutex
	// mu guards the fields below but era and calls, which lock
	// themselves.
	mu       sync.Mutex
	inflight map[jsonrpc.ID]bool
	batchOf  map[jsonrpc.ID]*batch // requests of a batch still unanswered
	// writing counts the answers being written, whose ids are no longer
	// in flight (see answer).
	writing   int
	drained   chan struct{} // closed once, after EOF, nothing is in flight or being written
	isDrained bool
	eof       bool
	// prepared holds result payloads the server encoded itself, by the
	// id of the request they answer (see prepared.go).
	prepared map[jsonrpc.ID][]byte
	// era settles which protocol era each request belongs to (era.go).
	era eraGuard
	// discover marks the server/discover requests in flight, whose
	// results are rewritten (modernVersions); cancelled the requests in
	// flight the client cancelled, whose answers are dropped.
	discover  map[jsonrpc.ID]bool
	cancelled map[jsonrpc.ID]bool
	// calls names the tools/call requests in flight to their handlers
	// (callid.go).
	calls *callTable
	// payloads are the buffers of prepared payloads, taken back once
	// written (prepared.go).
	payloads *bufpool.Pool
}

func newFrameConn(in io.Reader, out io.Writer, maxFrame int, log *slog.Logger) *frameConn {
	c := &frameConn{
		out:      out,
		maxFrame: maxFrame,
		log:      log,
		grace:    10 * time.Second,
		incoming: make(chan jsonrpc.Message),
		done:     make(chan struct{}),
		inflight: make(map[jsonrpc.ID]bool),
		batchOf:  make(map[jsonrpc.ID]*batch),
		drained:  make(chan struct{}),
		prepared: make(map[jsonrpc.ID][]byte),

		discover:  make(map[jsonrpc.ID]bool),
		cancelled: make(map[jsonrpc.ID]bool),
		calls:     newCallTable(),
		payloads:  bufpool.New(keptPayloads, maxKeptPayload),
	}
	go c.readLoop(in)
	return c
}

// readLoop reads frames until the input ends, answering malformed ones
// itself and passing the rest to Read.
func (c *frameConn) readLoop(in io.Reader) {
	defer close(c.incoming)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, oversized, err := readFrame(r, c.maxFrame)
		if len(line) > 0 || oversized {
			for _, msg := range c.accept(line, oversized) {
				select {
				case c.incoming <- msg:
				case <-c.done:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readFrame returns the next line without its line ending. When the line
// is longer than max, it returns its first bytes (enough to find an id)
// and oversized, having read and discarded the rest.
func readFrame(r *bufio.Reader, limit int) (line []byte, oversized bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !oversized {
			if len(buf)+len(chunk) > limit+2 { // +2: the line ending
				oversized = true
				keep := min(len(chunk), oversizedPrefix-len(buf))
				buf = append(buf, chunk[:max(keep, 0)]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !oversized {
			buf = bytes.TrimRight(buf, "\r\n")
		}
		if err == nil || (err == io.EOF && len(buf) > 0) {
			if err == io.EOF {
				return bytes.TrimSpace(buf), oversized, io.EOF
			}
			return bytes.TrimSpace(buf), oversized, nil
		}
		return nil, oversized, err
	}
}

// oversizedPrefix is how much of an oversized frame is kept to find its id.
const oversizedPrefix = 4096

// accept checks one frame and returns the messages for the engine (one,
// or those of a batch), having answered what the engine must not see.
func (c *frameConn) accept(line []byte, oversized bool) []jsonrpc.Message {
	if oversized {
		id := leadingID(line)
		c.log.Warn("frame over the size bound", "bound", c.maxFrame, "id", string(id))
		c.writeError(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message exceeds the %d-byte frame bound", c.maxFrame))
		return nil
	}
	if line[0] == '[' {
		return c.acceptBatch(line)
	}
	msg, bad := checkFrame(line)
	if bad == nil {
		bad = c.admit(msg)
	}
	if bad != nil {
		c.refuse(bad)
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if ok && req.ID.IsValid() {
		if !c.begin(req.ID) {
			c.writeError(rawID(req.ID), jsonrpc.CodeInvalidRequest, errIDInUse)
			return nil
		}
		if req.Method == "tools/call" {
			c.calls.add(req)
		}
	}
	return []jsonrpc.Message{msg}
}

const errIDInUse = "invalid request: id is already in use by a request in flight"

// admit applies the stream's era rules (era.go) to a request. It notes
// the server/discover requests, whose results are rewritten, and the
// cancellation of a request in flight, whose answer is then never sent:
// both eras say a receiver should not answer a cancelled request.
func (c *frameConn) admit(msg jsonrpc.Message) *badFrame {
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
		return nil
	case !req.ID.IsValid():
		if req.Method == "notifications/cancelled" {
			c.noteCancel(req.Params)
		}
		return nil
	}
	if bad := c.era.admit(req); bad != nil {
		return bad
	}
	if req.Method == methodDiscover {
		c.mu.Lock()
		c.discover[req.ID] = true
		c.mu.Unlock()
	}
	return nil
}

// noteCancel marks the request a notifications/cancelled names, if it is
// in flight. Malformed and unknown ids are ignored, as the specification
// asks (a cancellation may race the answer).
func (c *frameConn) noteCancel(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := makeID(validID(p.RequestID))
	if err != nil || !id.IsValid() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[id] {
		c.cancelled[id] = true
	}
}

// begin records a request in flight; false if its id is already in flight.
func (c *frameConn) begin(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[id] {
		return false
	}
	c.inflight[id] = true
	return true
}

func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-c.incoming:
		if ok {
			return msg, nil
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, io.EOF
	}
	// The input has ended: let calls in flight answer before the engine
	// closes the connection (which cancels them).
	c.mu.Lock()
	c.eof = true
	c.checkDrained()
	c.mu.Unlock()
	select {
	case <-c.drained:
	case <-time.After(c.grace):
		c.log.Warn("input ended; cancelling calls still in flight", "calls", c.inflightCount())
	case <-ctx.Done():
	case <-c.done:
	}
	if c.readErr != nil && c.readErr != io.EOF {
		return nil, c.readErr
	}
	return nil, io.EOF
}

func (c *frameConn) inflightCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.inflight)
}

// payloadBuffer gives a buffer for a prepared payload; see prepared.go.
func (c *frameConn) payloadBuffer(n int) []byte { return c.payloads.Get(n) }

// prepare holds payload for the response to id; see prepared.go.
func (c *frameConn) prepare(id jsonrpc.ID, payload []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prepared[id] = payload
}

func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, isResp := msg.(*jsonrpc.Response)
	var payload []byte
	if isResp {
		c.era.answered(resp)
		if c.screenResponse(resp) {
			return nil
		}
		payload = c.completeResponse(resp)
		// Once written (or joined into a batch's reply, or not written
		// at all), nothing refers to the payload any more.
		defer c.payloads.Put(payload)
	}
	parts, err := encodeMessage(msg, payload)
	if err != nil {
		return err
	}
	if isResp {
		parts = c.answer(resp.ID, parts)
		defer c.written()
	}
	if parts == nil { // a batch with answers still to come
		return nil
	}
	return c.writeParts(parts)
}

// answer releases id, whose answer is parts, before the answer is written:
// a client may reuse an id as soon as it has read its answer (go-sdk
// releases it in the same order). It returns what to write: parts, or for
// a member of a batch the batch's reply once it is complete, and nil
// before. The caller calls written once it has written it.
func (c *frameConn) answer(id jsonrpc.ID, parts [][]byte) [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writing++
	c.finish(id)
	if b, ok := c.batchOf[id]; ok {
		delete(c.batchOf, id)
		if reply := b.add(bytes.Join(parts, nil)); reply != nil {
			return [][]byte{reply}
		}
		return nil
	}
	return parts
}

// written ends what answer began.
func (c *frameConn) written() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writing--
	c.checkDrained()
}

// screenResponse reports whether resp answers a cancelled request, which
// is then forgotten without an answer; it rewrites a server/discover
// result on the way (modernVersions).
func (c *frameConn) screenResponse(resp *jsonrpc.Response) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.discover[resp.ID] {
		delete(c.discover, resp.ID)
		if resp.Error == nil {
			resp.Result = modernVersions(resp.Result)
		}
	}
	if !c.cancelled[resp.ID] {
		return false
	}
	delete(c.cancelled, resp.ID)
	delete(c.prepared, resp.ID)
	c.finish(resp.ID)
	c.log.Info("answer to a cancelled request not sent", "id", resp.ID.Raw())
	return true
}

// completeResponse readies a response for the wire: an error never goes
// out with code 0, and a result the server prepared is returned, to be
// spliced into the engine's (see prepared.go).
func (c *frameConn) completeResponse(resp *jsonrpc.Response) (payload []byte) {
	c.mu.Lock()
	payload, prepared := c.prepared[resp.ID]
	delete(c.prepared, resp.ID)
	c.mu.Unlock()
	if resp.Error != nil {
		var we *jsonrpc.Error
		if !errors.As(resp.Error, &we) || we.Code == 0 {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
		}
		return nil
	}
	if !prepared {
		return nil
	}
	if r := bytes.TrimSpace(resp.Result); len(r) == 0 || r[0] != '{' || !resp.ID.IsValid() {
		c.log.Error("prepared result: the engine's result is not an object", "id", resp.ID.Raw(), "result", fmt.Sprintf("%.40q", r))
		resp.Result, resp.Error = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: the result could not be encoded"}
		return nil
	}
	return payload
}

// encodeMessage encodes msg for the wire, as parts to write one after the
// other. A successful response is assembled around its result, which
// go-sdk has already marshalled: encoding it again would re-validate and
// re-compact every byte of it. A prepared payload goes into the result as
// it is assembled; one of minPayloadPart or more is a part of its own,
// between the head of the result and the engine's other members, so that
// a page of a megabyte goes out without being copied into the frame.
func encodeMessage(msg jsonrpc.Message, payload []byte) ([][]byte, error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() ||
		payload == nil && bytes.IndexByte(resp.Result, '\n') >= 0 {
		data, err := jsonrpc.EncodeMessage(msg)
		return [][]byte{data}, err
	}
	id, err := json.Marshal(resp.ID.Raw())
	if err != nil {
		return nil, err
	}
	if len(payload) >= minPayloadPart {
		head := append(append(append(make([]byte, 0, len(id)+32), `{"jsonrpc":"2.0","id":`...), id...), `,"result":{`...)
		tail := appendOtherMembers(make([]byte, 0, len(resp.Result)+3), resp.Result)
		return [][]byte{head, payload, append(tail, '}', '}')}, nil
	}
	// One frame, with room for writeParts' newline.
	data := make([]byte, 0, len(resp.Result)+len(payload)+len(id)+32)
	data = append(data, `{"jsonrpc":"2.0","id":`...)
	data = append(data, id...)
	data = append(data, `,"result":`...)
	if payload != nil {
		data = appendSpliced(data, resp.Result, payload)
	} else {
		data = append(data, resp.Result...)
	}
	return [][]byte{append(data, '}')}, nil
}

// minPayloadPart is the size from which a prepared payload is written as a
// part of its own: below it, copying it into one frame costs less than the
// two more writes, each of which may wake the client for a few bytes.
const minPayloadPart = 256 << 10

// finish forgets a request once answered; mu must be held.
func (c *frameConn) finish(id jsonrpc.ID) {
	if !c.inflight[id] {
		return
	}
	delete(c.inflight, id)
	c.calls.forget(id)
	c.checkDrained()
}

// checkDrained closes drained once the input has ended and every request
// is answered and its answer written; mu must be held.
func (c *frameConn) checkDrained() {
	if c.eof && !c.isDrained && len(c.inflight) == 0 && c.writing == 0 {
		c.isDrained = true
		close(c.drained)
	}
}

// writeError answers a frame the engine never saw. id is the raw JSON id,
// or nil for null.
func (c *frameConn) writeError(id json.RawMessage, code int, message string) {
	c.refuse(&badFrame{id: id, code: code, message: message})
}

// refuse answers a frame the engine never saw with bad.
func (c *frameConn) refuse(bad *badFrame) {
	c.log.Info("request refused before the engine", "id", string(bad.id), "code", bad.code, "message", bad.message)
	if err := c.writeLine(bad.response()); err != nil {
		c.log.Error("write error response", "error", err)
	}
}

// errorResponse encodes a JSON-RPC error response; id nil means null.
func errorResponse(id json.RawMessage, code int, message string) []byte {
	return (&badFrame{id: id, code: code, message: message}).response()
}

// response encodes the JSON-RPC error response that answers b.
func (b *badFrame) response() []byte {
	id := b.id
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(b.code), Message: b.message, Data: b.data}})
	return data
}

// writeLine writes one message and its newline, after any message being
// written.
func (c *frameConn) writeLine(data []byte) error {
	return c.writeParts([][]byte{data})
}

// writeParts writes one message, given in parts, and its newline, after
// any message being written. The newline goes into the last part's spare
// capacity when it has some (messages encoded here leave room for it), so
// a large message is not copied again; the parts are written one by one
// for the same reason.
func (c *frameConn) writeParts(parts [][]byte) error {
	last := len(parts) - 1
	parts[last] = append(parts[last], '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, p := range parts {
		if _, err := c.out.Write(p); err != nil {
			return err
		}
	}
	return nil
}

func (c *frameConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *frameConn) SessionID() string { return "" }

// frameTransport hands the engine one frameConn.
type frameTransport struct{ conn *frameConn }

func (t frameTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }
