package workspace

import (
	"context"
)

// A new process's first full listing reads every tree of a commit and the
// size of every file. The two are about equal parts of it (the Go tree: 23
// ms of trees, 18 ms of sizes, in process), and on one goroutine the second
// core stood idle meanwhile, as the client waits for the answer. So before
// a recursive walk with sizes, the tree under the walked directory is read
// into the listing cache in two stages on two goroutines: the walk's own
// reads the trees, in walk order, and hands each directory's listing to a
// sizer, which reads its files' sizes from a view of the packs (outside
// r.mu), judges its files by the deny list (the tree stage judges the
// directories, which it needs to walk on) and only then shares the listing
// through the cache. The walk proper then finds its listings there. A
// listing the sizer could not complete (a missing object) is left out of
// the cache, so that the walk reads it and reports the error as it always
// did.

// maxPrefetchShare bounds what a prefetch reads to this share of the
// listing cache's bound, so that its listings are still cached when the
// walk comes to them; the walk reads the rest itself.
const maxPrefetchShare = 2

// prefetchBatch is about how many entries the tree stage hands the sizer
// at a time: one wake-up, and one view of the packs, for some twenty
// directories rather than one each.
const prefetchBatch = 256

// prefetchJob is a directory's listing on its way to the sizer, with the
// tree entries its entries were made from.
type prefetchJob struct {
	key   listKey
	l     *dirListing
	valid []treeEntry
}

// prefetch reads the listings, with sizes, of the directories under root
// (root included) that the cache lacks, as described above, unless root's
// is cached already. It stops, leaving the rest to the walk, at the first
// directory it cannot read, when ctx is done, or at its share of the
// cache. It returns once the sizer is done.
func (c *commitSource) prefetch(ctx context.Context, root Entry, depth int, sess *listSession) {
	cache := c.ws.deny.listings
	// A tree listed before has its listings cached, as far as the cache
	// kept them: looking each up twice, here and in the walk, made a warm
	// listing a tenth slower, and the walk reads what was dropped.
	if l, ok := cache.get(listKey{tree: parseHash(root.SHA), dir: root.Path}); ok && l.sized {
		return
	}
	jobs := make(chan []prefetchJob, 2)
	sized := make(chan struct{})
	go func() {
		defer close(sized)
		c.sizeListings(ctx, jobs)
	}()
	var batch []prefetchJob
	inBatch := 0
	// A batch the sizer has no room for is sized here: when the sizer
	// lags (no second core to be had, as on a loaded machine), the work
	// stays on this goroutine rather than wait for it.
	own := sizer{c: c}
	flush := func() {
		if len(batch) == 0 {
			return
		}
		select {
		case jobs <- batch:
		default:
			own.size(ctx, batch)
			own.release() // before r.mu is taken again: see sizeListings
		}
		batch, inBatch = nil, 0
	}
	defer func() {
		flush()
		close(jobs)
		<-sized
	}()
	type dir struct {
		e     Entry
		depth int
	}
	budget := cache.maxEntries / maxPrefetchShare
	stack := []dir{{root, depth}}
	for len(stack) > 0 && budget > 0 && ctx.Err() == nil {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		key := listKey{tree: parseHash(d.e.SHA), dir: d.e.Path}
		l, ok := cache.get(key)
		var valid []treeEntry
		read := !ok || !l.sized
		if read {
			var err error
			if l, valid, err = c.readListing(key, false, sess); err != nil {
				return
			}
			c.judgeSome(l, true)
			budget -= len(l.entries)
		}
		// Subdirectories are pushed last to first, so that they are read in
		// walk order, and before the sizer has the listing to write to.
		if d.depth+1 <= MaxPathComponents {
			for i := len(l.entries) - 1; i >= 0; i-- {
				if e := l.entries[i]; e.Type == TypeDir && !l.denied[i] {
					stack = append(stack, dir{e, d.depth + 1})
				}
			}
		}
		if read {
			batch = append(batch, prefetchJob{key, l, valid})
			if inBatch += len(l.entries); inBatch >= prefetchBatch {
				flush()
			}
		}
	}
}

// sizeListings fills in the sizes of the listings of jobs, and shares
// each listing it completes through the cache. It reads the packs through
// a view, outside r.mu, kept from one batch to the next while more are
// queued. A view is handed back before waiting for the next batch, and
// before r.mu is taken for what the packs cannot tell: a caller holding
// r.mu may be waiting for the views out (dropDeleted), and the tree stage,
// which is to send the next listing, for r.mu.
func (c *commitSource) sizeListings(ctx context.Context, jobs <-chan []prefetchJob) {
	s := sizer{c: c}
	defer s.release()
	for {
		var batch []prefetchJob
		var ok bool
		select {
		case batch, ok = <-jobs:
		default:
			s.release()
			batch, ok = <-jobs
		}
		if !ok {
			return
		}
		s.size(ctx, batch)
	}
}

// A sizer fills in the sizes of prefetched listings through a view of the
// packs it checks out when it needs one.
type sizer struct {
	c        *commitSource
	pr, view *packReader
}

// size fills in the sizes of the listings of batch, judges their files,
// and shares each listing it completes through the cache.
func (s *sizer) size(ctx context.Context, batch []prefetchJob) {
	r := s.c.ws.repo
	for _, j := range batch {
		if ctx.Err() != nil {
			return
		}
		if s.view == nil {
			r.mu.Lock()
			s.pr = r.packsLocked()
			s.view = s.pr.checkout()
			r.mu.Unlock()
		}
		if missed := packedSizes(s.view, j.l.entries, j.valid); len(missed) > 0 {
			s.release()
			if s.c.objectSizes(j.l.entries, j.valid, missed) != nil {
				continue // the walk reads it again, and reports the error
			}
		}
		s.c.judgeSome(j.l, false)
		j.l.sized = true
		s.c.ws.deny.listings.put(j.key, j.l)
	}
}

// release hands the sizer's view back, if it holds one.
func (s *sizer) release() {
	if s.view != nil {
		s.pr.checkin(s.view)
		s.view = nil
	}
}

// objectSizes fills in the sizes of entries[i] for i in missed, asked of
// the object store.
func (c *commitSource) objectSizes(entries []Entry, valid []treeEntry, missed []int) error {
	r := c.ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, i := range missed {
		if err := c.objectSizeLocked(&entries[i], valid[i].hash); err != nil {
			return err
		}
	}
	return nil
}
