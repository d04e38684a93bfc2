package gonav

import (
	"context"
	"sync"
)

// lazyIndex is a unit's index, produced once, when a query first asks
// for it (unit.indexOf), by the function its loader gave (produce): the
// index a check just built, or one to read from the type store, or a
// check of the package with function bodies still to run. Callers asking
// at once wait for the one producing it; a failure (the producer's
// context ended) is not kept, and the next caller produces it again.
type lazyIndex struct {
	mu      sync.Mutex
	done    bool
	ix      *unitIndex
	running chan struct{} // closed when the producer under way returns; nil when none is
	produce func(ctx context.Context) (*unitIndex, error)
}

// indexOf returns the unit's index, producing it on the first call: nil
// for a unit that has none (not checked in full). The error is ctx's, or
// the producer's.
func (u *unit) indexOf(ctx context.Context) (*unitIndex, error) {
	if !u.indexed {
		return nil, nil
	}
	return u.index.get(ctx)
}

// setIndexer has the unit's index produced by produce when first asked
// for; the unit is then indexed.
func (u *unit) setIndexer(produce func(ctx context.Context) (*unitIndex, error)) {
	u.indexed = true
	u.index.mu.Lock()
	defer u.index.mu.Unlock()
	u.index.done, u.index.ix, u.index.produce = false, nil, produce
}

// setIndex makes ix the unit's index, produced already.
func (u *unit) setIndex(ix *unitIndex) {
	u.indexed = true
	u.index.mu.Lock()
	defer u.index.mu.Unlock()
	u.index.done, u.index.ix, u.index.produce = true, ix, nil
}

// indexReady returns the index when it is produced already, without
// producing it.
func (u *unit) indexReady() (*unitIndex, bool) {
	u.index.mu.Lock()
	defer u.index.mu.Unlock()
	return u.index.ix, u.index.done
}

func (l *lazyIndex) get(ctx context.Context) (*unitIndex, error) {
	for {
		l.mu.Lock()
		if l.done || l.produce == nil {
			defer l.mu.Unlock()
			return l.ix, nil
		}
		wait := l.running
		if wait == nil {
			l.running = make(chan struct{})
			produce := l.produce
			l.mu.Unlock()
			return l.run(ctx, produce)
		}
		l.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// run produces the index, and wakes the callers waiting for it.
func (l *lazyIndex) run(ctx context.Context, produce func(context.Context) (*unitIndex, error)) (ix *unitIndex, err error) {
	returned := false // not when produce panics
	defer func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if returned && err == nil {
			l.done, l.ix, l.produce = true, ix, nil
		}
		close(l.running)
		l.running = nil
	}()
	ix, err = produce(ctx)
	returned = true
	return ix, err
}
