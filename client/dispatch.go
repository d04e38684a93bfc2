package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
)

// handleFrame routes one frame read from stdout.
func (c *Conn) handleFrame(f frame) {
	c.stats.frames.Add(1)
	c.stats.bytes.Add(f.size + 1)
	if f.oversized {
		c.handleOversized(f)
		return
	}
	if len(bytes.TrimSpace(f.line)) == 0 {
		return
	}
	if c.handOff(f) {
		return
	}
	m, kind := decodeMessage(f.line)
	c.route(m, kind, f)
}

// route handles a message decoded from frame f.
func (c *Conn) route(m message, kind messageKind, f frame) {
	switch kind {
	case kindNotJSON:
		c.stats.nonJSON.Add(1)
		c.log.Warn("mcp non-JSON line on stdout dropped", "head", headString(f.line))
	case kindMalformed:
		c.stats.malformed.Add(1)
		c.log.Warn("mcp malformed message dropped", "head", headString(f.line))
	case kindResponse:
		c.handleResponse(m, f)
	case kindRequest:
		c.answerServerRequest(m)
	case kindNotification:
		c.handleNotification(m)
	}
}

// minHandOff is the size from which a frame answering a pending request is
// handed to the request's caller undecoded: decoding a 1 MiB page in the
// reader held up every frame behind it, the small answers of other callers
// among them, for as long as that took.
const minHandOff = 64 << 10

// handOff hands f, undecoded, to the pending request it answers, when it
// is large, its buffer is its own (the reader will not reuse it), and its
// leading members show it is a response; the caller decodes it (settle).
func (c *Conn) handOff(f frame) bool {
	if !f.owned || len(f.line) < minHandOff {
		return false
	}
	id, ok := responseID(f.line)
	if !ok {
		return false
	}
	p := c.take(id)
	if p == nil {
		return false // the reader decodes it and says why it is dropped
	}
	p.reply <- reply{frame: f.line}
	return true
}

// decodeAnswer decodes, in the caller's goroutine, a frame the reader
// handed off as the answer to request id: the reply it would have made.
// A frame that is not that answer after all (its leading members looked
// like one) is routed as the reader would have, and ends the request as a
// bad result.
func (c *Conn) decodeAnswer(id int64, line []byte) reply {
	m, kind := decodeMessage(line)
	if got, ok := parseID(m.ID); kind != kindResponse || !ok || got != id {
		c.route(m, kind, frame{line: line, owned: true})
		return reply{fail: &failure{outcome: BadResult, err: errors.New("the answer's frame is not a JSON-RPC response to the request"), head: line[:min(len(line), c.opts.Limits.OversizedKeep)], size: int64(len(line))}}
	}
	return reply{result: answer{raw: m.Result, call: m.call, buf: line}, rpcErr: m.Error}
}

// handleResponse hands the result to the pending request. The result's bytes
// are the frame's when the frame reader will not reuse its buffer (large
// frames), and a copy otherwise.
func (c *Conn) handleResponse(m message, f frame) {
	id, ok := parseID(m.ID)
	if !ok {
		c.stats.wrongIDType.Add(1)
		c.log.Warn("mcp response with a non-integer id dropped", "id", string(m.ID))
		return
	}
	p := c.take(id)
	if p == nil {
		c.dropUnmatched(id)
		return
	}
	a := answer{raw: m.Result, call: m.call}
	switch {
	case f.owned:
		a.buf = f.line
	case a.raw != nil:
		a.raw = bytes.Clone(a.raw)
	}
	p.reply <- reply{result: a, rpcErr: m.Error}
}

// dropUnmatched counts and logs a response that matches no pending request.
// An answer to a request the client gave up on (timed out, cancelled) is an
// expected race, counted apart from answers nobody asked for.
func (c *Conn) dropUnmatched(id int64) {
	if c.wasAbandoned(id) {
		c.stats.late.Add(1)
		c.log.Debug("mcp late answer to a request the client stopped waiting for; dropped", "id", id)
		return
	}
	c.stats.unknownID.Add(1)
	c.log.Warn("mcp response to no pending request dropped", "id", id)
}

func (c *Conn) handleOversized(f frame) {
	c.stats.oversized.Add(1)
	id, ok := oversizedID(f.head, f.tail)
	var p *pending
	if ok {
		p = c.take(id)
	}
	if p == nil {
		c.log.Warn("mcp oversized frame answers no pending request; dropped", "bytes", f.size, "id_found", ok, "id", id)
		return
	}
	c.log.Warn("mcp oversized answer discarded", "bytes", f.size, "id", id)
	p.reply <- reply{oversized: &f}
}

// answerServerRequest answers a server-to-client request: an empty roots
// list, an empty ping result, and -32601 for everything else. The id is echoed
// raw, with its JSON type.
func (c *Conn) answerServerRequest(m message) {
	c.stats.serverRequests.Add(1)
	resp := response{JSONRPC: "2.0", ID: m.ID}
	switch m.Method {
	case "roots/list":
		resp.Result = map[string][]any{"roots": {}}
	case "ping":
		resp.Result = struct{}{}
	default:
		resp.Error = &RPCErrorObject{Code: -32601, Message: "method not supported by this client: " + m.Method}
		c.log.Info("mcp server request refused", "method", m.Method, "id", string(m.ID))
	}
	line, err := json.Marshal(resp)
	if err == nil {
		_, err = c.t.send(context.Background(), c.outgoing(0, "", nil, line))
	}
	if err != nil {
		c.log.Warn("mcp answer to server request not sent", "method", m.Method, "err", err)
	}
}

func (c *Conn) handleNotification(m message) {
	c.stats.notifications.Add(1)
	switch m.Method {
	case "notifications/tools/list_changed":
		c.stats.toolListChanged.Add(1)
		c.log.Info("mcp server tool list changed")
	case "notifications/message", "notifications/progress", "notifications/cancelled",
		"notifications/resources/list_changed", "notifications/resources/updated",
		"notifications/prompts/list_changed":
		c.log.Debug("mcp notification ignored", "method", m.Method)
	default:
		c.stats.unknownNotifications.Add(1)
		c.log.Warn("mcp unknown notification ignored", "method", m.Method)
	}
}

func headString(b []byte) string {
	const n = 120
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
