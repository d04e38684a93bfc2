package verify

import (
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

// RemoveAll removes a tree that checks ran in, making directories
// writable first where needed (the go command leaves some read-only).
func RemoveAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	chmodTree(dir)
	os.RemoveAll(dir)
}
