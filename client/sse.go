package client

import (
	"bytes"
	"io"
)

// An sseEvent is one event of a text/event-stream response.
type sseEvent struct {
	name string // the event field; "" means message
	data []byte // the data lines joined with newlines; nil when oversized

	oversized bool
	head      []byte // oversized: the first bytes of the data
	tail      []byte // oversized: the last bytes of the data
	size      int64  // the data's size
}

// sseReader reads the events of a stream, each bounded to max bytes of data
// as frames are on stdio. It follows the SSE rules a JSON-RPC stream needs:
// data lines are joined, comment lines (":...") are ignored, the id and
// retry fields are ignored (this client does not resume streams), an event
// with empty data is not dispatched, and an event not ended by a blank line
// when the stream ends is dropped.
type sseReader struct {
	lines *frameReader
	max   int
	keep  int
}

// sseFieldRoom is the room a line needs beyond its data for the field name.
const sseFieldRoom = len("data: ")

func newSSEReader(r io.Reader, max, keep int) *sseReader {
	return &sseReader{lines: newFrameReader(r, max+sseFieldRoom, keep+sseFieldRoom, nil), max: max, keep: keep}
}

// next returns the next event, or the error that ended the stream (io.EOF
// at its end).
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var started bool
	for {
		f, err := s.lines.next()
		if err != nil {
			return sseEvent{}, err
		}
		if f.oversized {
			// A line longer than any event may be: only data lines grow so.
			if value, ok := fieldValue(f.head, "data"); ok {
				started = true
				s.overflow(&ev, value, f.tail, f.size-int64(len(f.head)-len(value)))
			}
			continue
		}
		line := f.line
		if len(line) == 0 {
			if ev.oversized || len(ev.data) > 0 {
				return ev, nil
			}
			// An event without data is not dispatched (as a 2025-11-25
			// server's first event, an id with empty data, to prime resumption).
			ev, started = sseEvent{}, false
			continue
		}
		if line[0] == ':' {
			continue // a comment, such as a keep-alive
		}
		if value, ok := fieldValue(line, "event"); ok {
			ev.name = string(value)
			continue
		}
		value, ok := fieldValue(line, "data")
		if !ok {
			continue // id, retry, or a field SSE ignores
		}
		if started && !ev.oversized {
			value = append([]byte{'\n'}, value...)
		}
		started = true
		if ev.oversized || len(ev.data)+len(value) > s.max {
			s.overflow(&ev, value, keepTail(nil, value, frameTailKeep), int64(len(value)))
			continue
		}
		ev.data = append(ev.data, value...)
		ev.size = int64(len(ev.data))
	}
}

// overflow adds data to an event that is over the limit, or makes it so.
func (s *sseReader) overflow(ev *sseEvent, head, tail []byte, size int64) {
	if !ev.oversized {
		ev.oversized = true
		ev.head = append(bytes.Clone(ev.data[:min(len(ev.data), s.keep)]), head[:min(len(head), s.keep-min(len(ev.data), s.keep))]...)
		ev.tail = keepTail(keepTail(nil, ev.data, frameTailKeep), tail, frameTailKeep)
		ev.data = nil
	} else {
		ev.tail = keepTail(ev.tail, tail, frameTailKeep)
	}
	ev.size += size
}

// fieldValue returns the value of line when its field is name: what follows
// "name:", less one leading space.
func fieldValue(line []byte, name string) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(name))
	if !ok || len(rest) == 0 || rest[0] != ':' {
		return nil, false
	}
	rest = rest[1:]
	if len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	return rest, true
}
