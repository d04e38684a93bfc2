package goindex

import "sync"

// blobCache holds parsed files by blob id. It is bounded by an approximate
// byte budget with two generations: when the young one fills, the old one
// is dropped and the young one becomes old. A hit in the old generation
// moves the entry to the young one, so files every revision shares survive.
// Indexes keep their own references, so eviction never breaks an index.
type blobCache struct {
	mu     sync.Mutex
	budget int // bytes per generation
	young  map[string]*parsedFile
	old    map[string]*parsedFile
	size   int // approximate bytes in young
}

func newBlobCache(budget int) *blobCache {
	return &blobCache{budget: budget, young: make(map[string]*parsedFile)}
}

func (c *blobCache) get(id string) (*parsedFile, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if pf, ok := c.young[id]; ok {
		return pf, true
	}
	pf, ok := c.old[id]
	if ok {
		c.putLocked(id, pf)
	}
	return pf, ok
}

// has reports whether id is cached, without making it recently used.
func (c *blobCache) has(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, young := c.young[id]
	_, old := c.old[id]
	return young || old
}

func (c *blobCache) put(id string, pf *parsedFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(id, pf)
}

func (c *blobCache) putLocked(id string, pf *parsedFile) {
	if _, ok := c.young[id]; ok {
		return
	}
	if c.size >= c.budget {
		c.old, c.young, c.size = c.young, make(map[string]*parsedFile, len(c.young)), 0
	}
	c.young[id] = pf
	c.size += pf.approxSize() + len(id)
}

// approxSize estimates the heap bytes a parsed file holds.
func (pf *parsedFile) approxSize() int {
	n := 128 + len(pf.pkgDoc) + len(pf.constraint)
	for i := range pf.syms {
		s := &pf.syms[i]
		n += 96 + len(s.name) + len(s.sig) + len(s.doc)
	}
	return n
}

// stringBytes returns the length of the strings of pf.
func (pf *parsedFile) stringBytes() int {
	n := len(pf.pkgName) + len(pf.pkgDoc) + len(pf.constraint)
	for i := range pf.syms {
		s := &pf.syms[i]
		n += len(s.name) + len(s.container) + len(s.sig) + len(s.doc)
	}
	return n
}
