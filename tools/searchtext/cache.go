package searchtext

import (
	"container/list"
	"sync"

	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
)

// contentCache keeps the contents of recently read blobs in memory,
// bounded in bytes, least recently used out first. Reading a blob from a
// pack (inflate, then apply deltas) costs far more than matching it, so a
// warm search reads its candidates from here. Blobs are immutable: an
// entry is never stale. Safe for concurrent use.
//
// Recency matters only to the next eviction, which only a put makes: an
// entry used again before any put is not moved again. A warm search of
// 10,000 cached files then moves none, where each move touches three
// list elements scattered in memory.
type contentCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	puts  uint64 // entries added so far
	items map[textindex.Blob]*list.Element
	lru   list.List // of *cacheEntry, most recent first
}

type cacheEntry struct {
	blob textindex.Blob
	data []byte
	// used is puts when the entry was last made most recent.
	used uint64
}

// touch makes e most recent, unless it became so after the last put.
func (c *contentCache) touch(e *list.Element) {
	if ce := e.Value.(*cacheEntry); ce.used != c.puts {
		ce.used = c.puts
		c.lru.MoveToFront(e)
	}
}

func newContentCache(max int64) *contentCache {
	return &contentCache{max: max, items: make(map[textindex.Blob]*list.Element)}
}

func (c *contentCache) get(b textindex.Blob) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[b]
	if !ok {
		return nil, false
	}
	c.touch(e)
	return e.Value.(*cacheEntry).data, true
}

// lookup returns the cached contents of blobs (nil for those not
// cached), making them recent: one lock for a whole search's files.
func (c *contentCache) lookup(blobs []textindex.Blob) [][]byte {
	out := make([][]byte, len(blobs))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, b := range blobs {
		if e, ok := c.items[b]; ok {
			c.touch(e)
			out[i] = e.Value.(*cacheEntry).data
		}
	}
	return out
}

// put keeps data unless it alone is over a quarter of the bound.
func (c *contentCache) put(b textindex.Blob, data []byte) {
	n := int64(len(data))
	if n > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[b]; ok {
		return
	}
	c.puts++
	c.items[b] = c.lru.PushFront(&cacheEntry{blob: b, data: data, used: c.puts})
	c.size += n
	for c.size > c.max {
		last := c.lru.Back()
		e := last.Value.(*cacheEntry)
		c.lru.Remove(last)
		delete(c.items, e.blob)
		c.size -= int64(len(e.data))
	}
}
