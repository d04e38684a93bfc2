package verify

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
)

// testJSON turns the events of go test -json back into the text go test
// would print, and passes other lines (the go command's own messages)
// through.
type testJSON struct {
	mu   sync.Mutex
	w    io.Writer
	line []byte
}

func (t *testJSON) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.line = append(t.line, p...)
			if len(t.line) > 1<<20 { // not an event: no need to hold it
				t.flushLocked()
			}
			break
		}
		t.line = append(t.line, p[:i+1]...)
		p = p[i+1:]
		t.flushLocked()
	}
	return n, nil
}

// Flush writes a last line that had no newline.
func (t *testJSON) Flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
}

func (t *testJSON) flushLocked() {
	if len(t.line) == 0 {
		return
	}
	var ev struct{ Output *string }
	if t.line[0] == '{' && json.Unmarshal(t.line, &ev) == nil {
		if ev.Output != nil {
			io.WriteString(t.w, *ev.Output)
		}
	} else {
		t.w.Write(t.line)
	}
	t.line = t.line[:0]
}

// redactor replaces the secrets a run names in check output: each
// secret's whole content and each of its lines of minLine bytes or more
// (shorter lines, like a lone "}", would wreck the output and say
// little).
type redactor struct {
	secrets []string
}

const (
	minLine      = 6
	redactedMark = "[redacted]"
)

func newRedactor(contents [][]byte) *redactor {
	r := &redactor{}
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minLine && !seen[s] {
			seen[s] = true
			r.secrets = append(r.secrets, s)
		}
	}
	for _, c := range contents {
		add(strings.TrimSpace(string(c)))
		for line := range strings.Lines(string(c)) {
			add(strings.TrimSpace(line))
		}
	}
	// Longest first, so a whole content goes before its lines.
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// redact returns s without the secrets, and how many it replaced.
func (r *redactor) redact(s string) (string, int) {
	n := 0
	for _, secret := range r.secrets {
		if c := strings.Count(s, secret); c > 0 {
			n += c
			s = strings.ReplaceAll(s, secret, redactedMark)
		}
	}
	return s, n
}
