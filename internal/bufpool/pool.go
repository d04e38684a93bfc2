package bufpool

import "sync"

// Pool keeps at most a fixed number of free buffers, each of at most a
// fixed capacity.
type Pool struct {
	mu     sync.Mutex
	free   [][]byte // free buffers, each of len 0
	keep   int      // the most free buffers kept
	maxCap int      // the largest capacity kept
}

// New returns a pool keeping at most keep free buffers of at most maxCap
// bytes each.
func New(keep, maxCap int) *Pool {
	return &Pool{keep: keep, maxCap: maxCap}
}

// Get returns a buffer of length 0 and capacity n at least: the smallest
// free one that is large enough, or a new one of capacity n. A nil pool
// always returns a new one.
func (p *Pool) Get(n int) []byte {
	if p == nil {
		return make([]byte, 0, n)
	}
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		last := len(p.free) - 1
		p.free[best], p.free[last] = p.free[last], nil
		p.free = p.free[:last]
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	return make([]byte, 0, n)
}

// Put gives b back for a later Get. The caller must hold no slice of b
// (nor give one to anyone) that is used after Put. A buffer larger than
// the pool keeps is dropped; so is the smallest buffer, b or a free one,
// when the pool is full: a larger one serves more requests. A nil pool
// keeps nothing.
func (p *Pool) Put(b []byte) {
	if p == nil || cap(b) == 0 || cap(b) > p.maxCap {
		return
	}
	b = b[:0]
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < p.keep {
		p.free = append(p.free, b)
		return
	}
	smallest := 0
	for i, f := range p.free {
		if cap(f) < cap(p.free[smallest]) {
			smallest = i
		}
	}
	if len(p.free) > 0 && cap(p.free[smallest]) < cap(b) {
		p.free[smallest] = b
	}
}
