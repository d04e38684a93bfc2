package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// contents is what stands of a log file: its complete events, where each
// ends, the artifacts it holds, and where the last complete line ends.
type contents struct {
	events    []Event
	ends      []int64
	artifacts map[string]span
	end       int64
}

// span is where a log file holds one line.
type span struct{ off, len int64 }

// artifactPrefix starts every artifact line, and no event line: an event
// is encoded with seq first.
var artifactPrefix = []byte(`{"artifact":`)

// Read returns the complete events of the log at path, ignoring a torn
// last line and what follows the first zero byte (see the package doc).
func Read(path string) ([]Event, error) {
	c, err := read(path)
	return c.events, err
}

// ReadHeld is Read, and also reports which artifacts the log holds, by
// digest: a reader that checks that what the events name is there.
func ReadHeld(path string) ([]Event, func(digest string) bool, error) {
	c, err := read(path)
	return c.events, c.holds, err
}

func (c contents) holds(digest string) bool {
	_, ok := c.artifacts[digest]
	return ok
}

// read returns what stands of the log at path. Its lines end at the first
// zero byte: the tail a log reserves is zeros, and a crash can leave
// zeros where a line was written but not synced (every sync covers all
// that was written before it, so nothing after them was synced either).
// A line cut short there, or at the end of the file, is torn; a line
// that is not one before complete ones is corruption.
func read(path string) (contents, error) {
	c := contents{artifacts: map[string]span{}}
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("eventlog: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line, err = readLong(r, line)
		}
		if errors.Is(err, io.EOF) {
			return c, nil // a line without newline is torn
		}
		if err != nil {
			return c, fmt.Errorf("eventlog: %w", err)
		}
		if bytes.IndexByte(line, 0) >= 0 {
			return c, nil // the reserved tail, or a line a crash lost
		}
		ok, err := c.add(line)
		if err != nil && !ok {
			// Only the last line can be torn; anything else is corruption.
			if b, perr := r.Peek(1); perr == nil && b[0] != 0 {
				return c, fmt.Errorf("eventlog: %s: line after seq %d is not an event: %w", path, lastSeq(c.events), err)
			}
			return c, nil
		}
	}
}

// readLong reads the rest of a line longer than r's buffer (an artifact
// line) after its first part.
func readLong(r *bufio.Reader, first []byte) ([]byte, error) {
	line := append([]byte(nil), first...)
	rest, err := r.ReadBytes('\n')
	return append(line, rest...), err
}

// add takes one complete line into c. It reports false with the line's
// error when the line is neither an event nor an artifact.
func (c *contents) add(line []byte) (bool, error) {
	off := c.end
	if bytes.HasPrefix(line, artifactPrefix) {
		var a artifactLine
		if err := json.Unmarshal(line, &a); err != nil {
			return false, err
		}
		if int64(len(a.Data)) != a.Size {
			return false, fmt.Errorf("artifact %s: %d bytes, the line says %d", a.Digest, len(a.Data), a.Size)
		}
		c.end += int64(len(line))
		c.artifacts[a.Digest] = span{off, int64(len(line))}
		return true, nil
	}
	var ev Event
	if err := json.Unmarshal(bytes.TrimSpace(line), &ev); err != nil {
		return false, err
	}
	c.end += int64(len(line))
	c.events = append(c.events, ev)
	c.ends = append(c.ends, c.end)
	return true, nil
}

func lastSeq(events []Event) int64 {
	if len(events) == 0 {
		return 0
	}
	return events[len(events)-1].Seq
}

// Open reads an existing log and reopens it for appending. A torn last
// line (no newline, or not JSON), the reserved zeros and whatever a crash
// left after them are cut off before anything is appended. keep, when
// not nil, is given the complete events and which artifacts the log
// holds, and returns how many of the events stand: the events after
// those are cut off too (an error from keep leaves the file as it is). A
// reader uses it for events that name something the log may have lost
// (an artifact of a log written before artifacts were kept in it).
func Open(path string, keep func(events []Event, held func(digest string) bool) (int, error)) (*Log, []Event, error) {
	c, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	n, good := len(c.events), c.end
	if keep != nil {
		k, err := keep(c.events, c.holds)
		if err != nil {
			return nil, nil, err
		}
		if k = min(max(k, 0), n); k < n {
			n, good = k, 0
			if k > 0 {
				good = c.ends[k-1]
			}
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("eventlog: %w", err)
	}
	if err := cut(f, good); err != nil {
		f.Close()
		return nil, nil, err
	}
	l := newLog(f, path, good)
	for d, s := range c.artifacts {
		if s.off < good {
			l.artifacts[d] = s
		}
	}
	if n > 0 {
		l.seq = c.events[n-1].Seq
		l.durable = l.seq
	}
	return l, c.events[:n], nil
}

// cut truncates f to size, durably, when it is longer.
func cut(f *os.File, size int64) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	if st.Size() <= size {
		return nil
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("eventlog: cutting torn tail: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	return nil
}
