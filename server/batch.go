package server

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxBatch bounds the messages of one JSON-RPC batch.
const maxBatch = 100

// batch collects the replies to one JSON-RPC batch, which 2025-03-26
// clients may send, to write them as one array once every request in it
// has been answered.
type batch struct {
	replies [][]byte
	pending int // requests not answered yet
}

// acceptBatch splits a batch into messages for the engine. Its malformed
// members are answered in the batch's reply; a batch of notifications only
// gets no reply, as JSON-RPC says.
func (c *frameConn) acceptBatch(line []byte) []jsonrpc.Message {
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		c.writeError(nil, jsonrpc.CodeParseError, "parse error: the message is not JSON")
		return nil
	}
	switch {
	case len(members) == 0:
		c.writeError(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
		return nil
	case len(members) > maxBatch:
		c.writeError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a batch of more than %d messages", maxBatch))
		return nil
	}
	b := &batch{}
	var msgs []jsonrpc.Message
	c.mu.Lock()
	for _, m := range members {
		msg, bad := checkFrame(bytes.TrimSpace(m)) // refuses a batch inside
		if bad != nil {
			b.replies = append(b.replies, errorResponse(bad.id, bad.code, bad.message))
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			if c.inflight[req.ID] {
				b.replies = append(b.replies, errorResponse(rawID(req.ID), jsonrpc.CodeInvalidRequest, errIDInUse))
				continue
			}
			c.inflight[req.ID] = true
			c.batchOf[req.ID] = b
			b.pending++
			if req.Method == "tools/call" {
				c.calls.add(req)
			}
		}
		msgs = append(msgs, msg)
	}
	c.mu.Unlock()
	if b.pending == 0 && len(b.replies) > 0 {
		if err := c.writeLine(b.encode()); err != nil {
			c.log.Error("write batch reply", "error", err)
		}
	}
	return msgs
}

// add adds one reply to the batch and returns the batch's reply once it is
// complete, nil before; the connection's mu must be held.
func (b *batch) add(reply []byte) []byte {
	b.replies = append(b.replies, reply)
	b.pending--
	if b.pending > 0 {
		return nil
	}
	return b.encode()
}

func (b *batch) encode() []byte {
	return append(append([]byte{'['}, bytes.Join(b.replies, []byte{','})...), ']')
}
