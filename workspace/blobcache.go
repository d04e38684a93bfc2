package workspace

import (
	"container/list"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// blobCache keeps whole inflated blobs, least recently used first out,
// within a bound on their total bytes. One cache serves every workspace of
// a registry, so the bound is the registry's, and every caller of every
// read path shares what one of them inflated: a text read that pages
// through a large file inflates it once, not once per page. Entries are
// keyed by repository and blob id, never by id alone: a caller must not
// read, by naming its id, a blob that only another workspace holds.
//
// Loading is single-flight: callers that miss on the same blob at once wait
// for one inflation rather than each doing their own. It is safe for
// concurrent use; its lock is never held while a blob is inflated.
type blobCache struct {
	maxBytes int64 // the bound on the bytes held
	maxEntry int64 // a larger blob is never held

	mu       sync.Mutex
	bytes    int64
	order    *list.List // of *cachedBlob, most recent at the front
	byKey    map[blobKey]*list.Element
	inflight map[blobKey]*blobLoad
}

type blobKey struct {
	repo *repo
	hash plumbing.Hash
}

type cachedBlob struct {
	key  blobKey
	data []byte
}

// blobLoad is one inflation in progress; done is closed when data and err
// are set.
type blobLoad struct {
	done    chan struct{}
	data    []byte
	err     error
	waiters int // callers waiting for it besides the one inflating; under mu
}

// newBlobCache returns a cache of at most maxBytes; blobs over a quarter of
// it are not kept, so that one large file cannot evict everything else.
// maxBytes <= 0 makes a cache that keeps nothing.
func newBlobCache(maxBytes int64) *blobCache {
	return &blobCache{
		maxBytes: max(maxBytes, 0),
		maxEntry: max(maxBytes, 0) / 4,
		order:    list.New(),
		byKey:    make(map[blobKey]*list.Element),
		inflight: make(map[blobKey]*blobLoad),
	}
}

// fits reports whether a blob of size bytes would be kept.
func (c *blobCache) fits(size int64) bool {
	return c != nil && size <= c.maxEntry
}

// get returns a cached blob. The slice is shared: callers must not modify
// it.
func (c *blobCache) get(k blobKey) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cachedBlob).data, true
}

// load returns the blob k, calling inflate to read it unless it is cached
// or another caller is reading it already. The result is shared: callers
// must not modify it. A failed inflation is not cached.
func (c *blobCache) load(k blobKey, inflate func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if el, ok := c.byKey[k]; ok {
		c.order.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cachedBlob).data, nil
	}
	if l, ok := c.inflight[k]; ok {
		l.waiters++
		c.mu.Unlock()
		<-l.done
		return l.data, l.err
	}
	l := &blobLoad{done: make(chan struct{})}
	c.inflight[k] = l
	c.mu.Unlock()

	l.data, l.err = inflate()

	c.mu.Lock()
	delete(c.inflight, k)
	if l.err == nil {
		c.putLocked(k, l.data)
	}
	c.mu.Unlock()
	close(l.done)
	return l.data, l.err
}

// put keeps data as blob k, if it fits.
func (c *blobCache) put(k blobKey, data []byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(k, data)
}

func (c *blobCache) putLocked(k blobKey, data []byte) {
	if _, ok := c.byKey[k]; ok || int64(len(data)) > c.maxEntry {
		return
	}
	c.byKey[k] = c.order.PushFront(&cachedBlob{key: k, data: data})
	c.bytes += int64(len(data))
	for c.bytes > c.maxBytes {
		last := c.order.Back()
		b := last.Value.(*cachedBlob)
		c.order.Remove(last)
		delete(c.byKey, b.key)
		c.bytes -= int64(len(b.data))
	}
}

// forget drops every blob of one repository, when it closes.
func (c *blobCache) forget(r *repo) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.byKey {
		if k.repo == r {
			c.order.Remove(el)
			delete(c.byKey, k)
			c.bytes -= int64(len(el.Value.(*cachedBlob).data))
		}
	}
}
