package client

import (
	"bytes"
	"io"

	"github.com/repo-mcp/repo-mcp/internal/bufpool"
)

// bounded is a response body read within Limits.FrameBytes.
type bounded struct {
	body      []byte // the whole body; nil when oversized
	head      []byte // the first bytes (Limits.OversizedKeep)
	tail      []byte // oversized: the last bytes, where a trailing "id" would be
	size      int64  // the body's size, as far as it was read
	oversized bool
	err       error // the body ended with an error, not at its end
	pooled    bool  // body's buffer is from Conn.frames (see Result.Release)
}

// readBounded reads r to its end keeping at most max bytes: a longer body is
// read and discarded, keeping its first keep and last frameTailKeep bytes,
// as the stdio reader does with a long frame. A body whose length is known
// (length, else -1) and larger than the stdio reader keeps for itself is
// read into a buffer from pool, the size of the body, rather than one that
// doubles from 512 bytes as it is read.
func readBounded(r io.Reader, max, keep int, length int64, pool *bufpool.Pool) bounded {
	var b bounded
	buf := []byte(nil)
	if length > maxReusedBuf && length <= int64(max) {
		buf, b.pooled = pool.Get(int(length)+1), true // +1: room to read the end
	}
	body, err := readAll(buf, io.LimitReader(r, int64(max)+1))
	b.size = int64(len(body))
	b.head = body[:min(len(body), keep)]
	if err != nil {
		b.err = err
		return b
	}
	if len(body) <= max {
		b.body = body
		return b
	}
	b.oversized = true
	b.head = bytes.Clone(b.head)
	t := &tailWriter{tail: keepTail(nil, body, frameTailKeep)}
	n, err := io.Copy(t, r)
	b.size += n
	b.tail, b.err = t.tail, err
	return b
}

// readAll is io.ReadAll appending to buf, which it fills before it grows.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	if buf == nil {
		return io.ReadAll(r)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// tailWriter keeps the last frameTailKeep bytes written to it.
type tailWriter struct{ tail []byte }

func (t *tailWriter) Write(p []byte) (int, error) {
	t.tail = keepTail(t.tail, p, frameTailKeep)
	return len(p), nil
}

// finish ends request id with r, unless something ended it already.
func (c *Conn) finish(id int64, r reply) {
	if p := c.take(id); p != nil {
		p.reply <- r
	}
}

// routeHTTP routes one message read from the response to request own, whose
// stream it came on. It reports whether the message ended that request.
// line must not be reused: a result keeps slices of it, and gives it back
// to Conn.frames on Release when pooled is set.
func (c *Conn) routeHTTP(line []byte, own int64, pooled bool) bool {
	c.stats.frames.Add(1)
	c.stats.bytes.Add(int64(len(line)))
	m, kind := decodeMessage(line)
	switch kind {
	case kindNotJSON:
		c.stats.nonJSON.Add(1)
		c.log.Warn("mcp non-JSON message dropped", "head", headString(line))
	case kindMalformed:
		if m.Error != nil && answers(m.ID, own) {
			c.finish(own, reply{rpcErr: m.Error})
			return true
		}
		c.stats.malformed.Add(1)
		c.log.Warn("mcp malformed message dropped", "head", headString(line))
	case kindResponse:
		id, ok := parseID(m.ID)
		switch {
		case ok && id == own, m.Error != nil && answers(m.ID, own):
			a := answer{raw: m.Result, call: m.call}
			if pooled {
				a.buf = line
			}
			c.finish(own, reply{result: a, rpcErr: m.Error})
			return true
		case !ok:
			c.stats.wrongIDType.Add(1)
			c.log.Warn("mcp response with a non-integer id dropped", "id", string(m.ID))
		default:
			// Each request's response comes on its own POST: an answer to
			// another id here is not one the client can trust.
			c.stats.unknownID.Add(1)
			c.log.Warn("mcp response to another request dropped", "id", id, "stream", own)
		}
	case kindRequest:
		c.answerServerRequest(m)
	case kindNotification:
		c.handleNotification(m)
	}
	return false
}
