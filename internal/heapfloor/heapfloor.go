// Package heapfloor keeps a long-running process's garbage collector from
// running while its heap is small: the collector's goal stays at or above a
// floor (a few tens of MiB) however little of the heap is live.
//
// With the runtime's default (GOGC=100) a server whose live heap is a few
// MiB collects every few MiB allocated. A small MCP call allocates a few
// hundred KiB (go-sdk decodes each request's params several times, each
// time into a fresh 32 KiB buffer), so the server collected every few dozen
// calls, and the collector, the sweeper and the scavenger handing freed
// pages back to the kernel took about a third of its CPU. A floor trades
// that for a resident heap up to the floor.
//
// After each collection, [Start]'s tuner sets the GC percentage so that the
// next goal is the larger of the floor and what GOGC=100 would give:
//
//	stop := heapfloor.Start(heapfloor.Default)
//	defer stop()
//
// An operator who set GOGC or GOMEMLIMIT has chosen how the collector runs:
// [Tuned] reports it, and the process should leave the collector alone.
package heapfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Default is the floor repo-mcp serve uses: the heap grows to 32 MiB before
// it is collected while less than 16 MiB of it is live, as it would with
// GOGC=100 once 16 MiB is.
const Default = 32 << 20

const (
	// basePercent is the runtime's default GOGC, the least the tuner sets:
	// a large live heap is collected as it would be without a floor.
	basePercent = 100
	// minHeap is the runtime's minimum heap goal at GOGC=100; it scales
	// with the percentage.
	minHeap = 4 << 20
)

// Tuned reports whether the environment sets GOGC or GOMEMLIMIT: the
// operator's choice, which a floor must not override.
func Tuned() bool {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	return gogc || limit
}

// Percent is the GC percentage that puts the next goal at floor, given
// the heap the last collection marked live and the stacks and globals it
// scanned (all 0 before the first collection), or the runtime's default
// where that puts the goal higher.
//
// The runtime's goal is the larger of live + (live + roots) * percent/100
// and a minimum heap of 4 MiB * percent/100. The percentage is the one
// whose first term is the floor, but at most the one whose minimum heap is
// the floor: with a nearly empty heap the minimum is then the goal.
func Percent(live, roots, floor uint64) int {
	atMinimum := floor * 100 / minHeap
	if live == 0 {
		return int(max(basePercent, atMinimum))
	}
	// (floor - live) * 100 / (live + roots), rounded up.
	p := ((floor-min(floor, live))*100 + live + roots - 1) / (live + roots)
	return int(max(basePercent, min(p, atMinimum)))
}

// tuner re-arms itself at each collection: a sentinel object's cleanup
// runs once the collection that found it unreachable has ended.
type tuner struct {
	floor uint64
	// tuned, when set (by tests), is called after each tuning with the
	// percentage set.
	tuned func(percent int)

	mu      sync.Mutex
	stopped bool
	last    int // the percentage set last; 0 before the first
	sample  []metrics.Sample
}

// sentinel is large enough not to be batched with other tiny objects,
// whose cleanups would then wait for their neighbours.
type sentinel struct{ _ [16]byte }

// Start keeps the collector's goal at floor bytes or more until stop is
// called, which restores the runtime's default percentage. It sets the
// percentage at once (for the first collection's goal) and again after
// every collection. The caller decides whether to start it at all (see
// [Tuned]).
func Start(floor uint64) (stop func()) {
	t := newTuner(floor)
	t.start()
	return t.stop
}

func newTuner(floor uint64) *tuner {
	return &tuner{floor: floor, sample: []metrics.Sample{{Name: liveMetric}, {Name: stacksMetric}, {Name: globalsMetric}}}
}

// The runtime's goal is computed from the heap the last collection marked
// live, and the stacks and globals it scanned.
const (
	liveMetric    = "/gc/heap/live:bytes"
	stacksMetric  = "/gc/scan/stack:bytes"
	globalsMetric = "/gc/scan/globals:bytes"
)

func (t *tuner) start() {
	t.set(Percent(0, 0, t.floor))
	t.arm()
}

// arm registers the cleanup that tunes after the next collection.
func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), func(t *tuner) { t.tune() }, t)
}

// tune sets the percentage from the live heap the last collection marked,
// and re-arms for the next one.
func (t *tuner) tune() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	metrics.Read(t.sample)
	var v [3]uint64
	for i, s := range t.sample {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	t.setLocked(Percent(v[0], v[1]+v[2], t.floor))
	t.arm()
}

func (t *tuner) set(percent int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setLocked(percent)
}

// setLocked sets percent unless it is the one set last: setting the
// percentage takes the heap lock, so a steady heap should not.
func (t *tuner) setLocked(percent int) {
	if percent != t.last {
		debug.SetGCPercent(percent)
		t.last = percent
	}
	if t.tuned != nil {
		t.tuned(percent)
	}
}

func (t *tuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(basePercent)
	}
}
