package workspace

import (
	"context"
	"runtime"
	"sync"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
)

// A new process's first full listing reads every tree of a commit (and,
// when asked, every file's size), while the client waits for the answer
// and the second core stands idle. So before a recursive walk, the
// listings of the directories under the walked one are read into the
// listing cache by a few workers side by side, each through a view of the
// packs of its own (outside r.mu, as readPackedBlob reads), and the walk
// proper then finds them there. A worker reads a directory's tree,
// describes and judges its entries, reads their sizes when asked, shares
// the listing through the cache and queues the subdirectories the deny
// list does not hide. What the packs cannot give (a loose tree, a symlink's
// target, a surprise in a pack) a worker reads under r.mu as the walk
// would; a listing it cannot read at all is left out of the cache, so that
// the walk reads it and reports the error as it always did.

// maxPrefetchShare bounds what a prefetch reads to this share of the
// listing cache's bound, so that its listings are still cached when the
// walk comes to them; the walk reads the rest itself.
const maxPrefetchShare = 2

// maxPrefetchWorkers bounds the workers of a prefetch: the walk's own
// goroutine and one more. The answer waits for the whole tree anyway, so
// more would take cores from other callers for little.
const maxPrefetchWorkers = 2

// prefetchDir is a directory queued for a prefetch's workers, depth
// components deep.
type prefetchDir struct {
	e     Entry
	depth int
}

// prefetchQueue holds the directories a prefetch has yet to read. A worker
// waits on it while it is empty and others are reading directories that
// may add to it.
type prefetchQueue struct {
	mu      sync.Mutex
	more    *sync.Cond
	dirs    []prefetchDir
	reading int // directories taken and not yet done
	budget  int // entries still to read: a stop at 0
}

// take returns the next directory to read, or false once there is none
// and none can come, or the budget is spent, or ctx is done. release is
// called before it waits: a worker must not hold a view of the packs
// while it waits (see prefetchWorker).
func (q *prefetchQueue) take(ctx context.Context, release func()) (prefetchDir, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.dirs) == 0 && q.reading > 0 && q.budget > 0 && ctx.Err() == nil {
		release()
		q.more.Wait()
	}
	if len(q.dirs) == 0 || q.budget <= 0 || ctx.Err() != nil {
		q.more.Broadcast() // the others stop too
		return prefetchDir{}, false
	}
	d := q.dirs[len(q.dirs)-1]
	q.dirs = q.dirs[:len(q.dirs)-1]
	q.reading++
	return d, true
}

// done records a directory read: its listing l (nil when it could not be
// read) and whether its entries came from a tree rather than the cache. It
// queues l's subdirectories.
func (q *prefetchQueue) done(d prefetchDir, l *dirListing, fresh bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.reading--
	defer q.more.Broadcast()
	if l == nil || d.depth+1 > MaxPathComponents {
		return
	}
	if fresh {
		q.budget -= len(l.entries)
	}
	for i := len(l.entries) - 1; i >= 0; i-- {
		if e := l.entries[i]; e.Type == TypeDir && !l.denied[i] {
			q.dirs = append(q.dirs, prefetchDir{e, d.depth + 1})
		}
	}
}

// prefetch reads the listings of the directories under root (root
// included) that the cache lacks, with sizes when sizes is set, as
// described above, unless root's is cached already. It returns once its
// workers are done.
func (c *commitSource) prefetch(ctx context.Context, root Entry, depth int, sizes bool, sess *listSession) {
	cache := c.ws.deny.listings
	// A tree listed before has its listings cached, as far as the cache
	// kept them: looking each up twice, here and in the walk, made a warm
	// listing a tenth slower, and the walk reads what was dropped.
	if l, ok := cache.get(listKey{tree: parseHash(root.SHA), dir: root.Path}); ok && (l.sized || !sizes) {
		return
	}
	r := c.ws.repo
	r.mu.Lock()
	if !sess.packsChecked {
		r.refreshPacksLocked()
		sess.packsChecked = true
	}
	r.mu.Unlock()
	q := &prefetchQueue{dirs: []prefetchDir{{root, depth}}, budget: cache.maxEntries / maxPrefetchShare}
	q.more = sync.NewCond(&q.mu)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxPrefetchWorkers) - 1 {
		wg.Go(func() { c.prefetchWorker(ctx, q, sizes) })
	}
	c.prefetchWorker(ctx, q, sizes)
	wg.Wait()
}

// prefetchWorker reads directories from q until it is done. Its view of
// the packs is handed back before it waits for a directory and before it
// takes r.mu: a caller holding r.mu may be waiting for the views out
// (dropDeleted), and the other workers for r.mu or for this one's
// directories.
func (c *commitSource) prefetchWorker(ctx context.Context, q *prefetchQueue, sizes bool) {
	w := prefetcher{c: c, sizes: sizes}
	defer w.release()
	for {
		d, ok := q.take(ctx, w.release)
		if !ok {
			return
		}
		l, fresh := w.listing(d.e)
		q.done(d, l, fresh)
	}
}

// A prefetcher is one worker's state: the view of the packs it reads
// through, checked out when it needs one.
type prefetcher struct {
	c        *commitSource
	sizes    bool
	pr, view *packReader
	// tree holds the entries of the tree read last: a listing keeps
	// what it needs of them, so they are decoded into the same slice.
	tree []treeEntry
}

// listing returns directory dir's listing, from the cache or read and
// cached, and whether it was read; nil if it could not be read.
func (w *prefetcher) listing(dir Entry) (l *dirListing, fresh bool) {
	c := w.c
	cache := c.ws.deny.listings
	key := listKey{tree: parseHash(dir.SHA), dir: dir.Path}
	if l, ok := cache.get(key); ok && (l.sized || !w.sizes) {
		return l, false
	}
	l, ok := w.readPacked(key)
	if !ok {
		w.release()
		var err error
		if l, _, err = c.readListing(key, w.sizes, nil); err != nil {
			return nil, false
		}
	}
	c.judge(l)
	cache.put(key, l)
	return l, true
}

// readPacked reads directory k's listing through the worker's view, or
// returns false for what the view cannot give: a tree the packs do not
// hold, a symlink's target, a size the packs cannot tell.
func (w *prefetcher) readPacked(k listKey) (*dirListing, bool) {
	v := w.checkout()
	typ, data, err := v.read(k.tree, maxTreeBytes)
	if err != nil || typ != plumbing.TreeObject || len(data) == 0 {
		return nil, false
	}
	// The names are read in place: the bytes the view gave are never
	// written to again (it may keep them as a delta base), and the
	// listing copies the names into paths of its own.
	tree, err := appendTree(w.tree[:0], unsafe.String(&data[0], len(data)))
	if err != nil {
		return nil, false
	}
	w.tree = tree
	l, valid := newListing(k.dir, tree)
	for _, e := range l.entries {
		if e.Type == TypeSymlink {
			return nil, false
		}
	}
	if w.sizes {
		if missed := packedSizes(v, l.entries, valid); len(missed) > 0 {
			return nil, false
		}
		l.sized = true
	}
	return l, true
}

// checkout returns the worker's view, checking one out if it has none.
func (w *prefetcher) checkout() *packReader {
	if w.view == nil {
		r := w.c.ws.repo
		r.mu.Lock()
		w.pr = r.packsLocked()
		w.view = w.pr.checkout()
		r.mu.Unlock()
	}
	return w.view
}

// release hands the worker's view back, if it holds one.
func (w *prefetcher) release() {
	if w.view != nil {
		w.pr.checkin(w.view)
		w.view = nil
	}
}
