package goindex

import (
	"sync"
	"sync/atomic"
	"time"
)

// Progress is told how far the index build a search waits for has come:
// done of total files read (total is 0 until the build has listed them).
// A search that finds its index ready is told nothing.
type Progress func(done, total int)

// progressPoll is how often a waiting search looks at its build's counts.
const progressPoll = 200 * time.Millisecond

// buildCounts are a build's counts, updated as it goes and read by every
// search waiting for it: a build shared by several searches reports to
// each of them.
type buildCounts struct {
	done, total atomic.Int64
}

// watch reports c to p every progressPoll, whenever the counts changed,
// until the returned stop is called; stop returns once p will not be
// called again. It does nothing when p is nil.
func (c *buildCounts) watch(p Progress) (stop func()) {
	if p == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(progressPoll)
		defer tick.Stop()
		var lastDone, lastTotal int64 = -1, -1
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				done, total := c.done.Load(), c.total.Load()
				if done != lastDone || total != lastTotal {
					lastDone, lastTotal = done, total
					p(int(done), int(total))
				}
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
	}
}
