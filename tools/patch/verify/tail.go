package verify

import (
	"bytes"
	"os"
	"sync"
)

// tail keeps the last max bytes written to it, and counts them all.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) truncated() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total > int64(t.max)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > t.max {
		return string(t.buf[len(t.buf)-t.max:])
	}
	return string(t.buf)
}

// last returns the last whole lines of the output, at most n bytes of
// them (the end of one longer line when that is all there is), and the
// number of bytes written so far.
func (t *tail) last(n int) (string, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i+1 < len(b) {
			b = b[i+1:]
		}
	}
	return string(b), t.total
}

// RemoveAll removes a tree that checks ran in, making directories
// writable first where needed (the go command leaves some read-only).
func RemoveAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	chmodTree(dir)
	os.RemoveAll(dir)
}
