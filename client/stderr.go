package client

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// stderrRing keeps the newest lines of a server's stderr within fixed bounds:
// each line is cut at lineMax bytes and the lines kept total at most totalMax
// bytes. It is never parsed; it is evidence for a human and for error messages.
type stderrRing struct {
	lineMax, totalMax int

	mu      sync.Mutex
	lines   []string // complete lines, oldest first
	total   int      // bytes in lines, counting one newline each
	cur     []byte   // the line being read, at most lineMax bytes
	seen    int64    // bytes read from the server
	dropped int64    // bytes cut from over-long lines or evicted
}

func newStderrRing(lineMax, totalMax int) *stderrRing {
	return &stderrRing{lineMax: min(lineMax, totalMax), totalMax: totalMax}
}

// drain copies r into the ring until r ends; it never blocks the writer for
// longer than one copy into memory.
func (s *stderrRing) drain(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		s.write(buf[:n])
		if err != nil {
			s.mu.Lock()
			s.endLine()
			s.mu.Unlock()
			return
		}
	}
}

func (s *stderrRing) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen += int64(len(p))
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		room := s.lineMax - len(s.cur)
		if len(part) > room {
			s.dropped += int64(len(part) - room)
			part = part[:room]
		}
		s.cur = append(s.cur, part...)
		if i < 0 {
			return
		}
		s.endLine()
		p = p[i+1:]
	}
}

// endLine moves the current line into the ring, evicting the oldest lines.
func (s *stderrRing) endLine() {
	if len(s.cur) == 0 {
		return
	}
	line := string(s.cur)
	s.cur = s.cur[:0]
	s.lines = append(s.lines, line)
	s.total += len(line) + 1
	for s.total > s.totalMax {
		s.total -= len(s.lines[0]) + 1
		s.dropped += int64(len(s.lines[0]) + 1)
		s.lines[0] = ""
		s.lines = s.lines[1:]
	}
}

// tail returns the kept lines, newline-terminated, plus the unfinished line.
func (s *stderrRing) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.Write(s.cur)
	return b.String()
}

func (s *stderrRing) counts() (seen, dropped int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen, s.dropped
}
