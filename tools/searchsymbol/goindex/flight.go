package goindex

import (
	"context"
	"sync"
)

// flightGroup runs one build per key at a time: callers that ask for a key
// while its build is running wait for that build instead of starting
// another. The build runs on its own goroutine, detached from the
// cancellation of the caller that started it, so one caller giving up
// never fails the others; a caller whose context ends just stops waiting.
type flightGroup struct {
	mu    sync.Mutex
	calls map[string]*flight
}

type flight struct {
	done   chan struct{}
	counts buildCounts
	idx    *Index
	from   From
	err    error
}

// do returns the result of build for key, starting build only if no build
// of key is in flight. build keeps its counts in the flight's; progress,
// when set, is told them while this caller waits.
func (g *flightGroup) do(ctx context.Context, key string, progress Progress, build func(context.Context, *buildCounts) (*Index, From, error)) (*Index, From, error) {
	g.mu.Lock()
	if g.calls == nil {
		g.calls = make(map[string]*flight)
	}
	f, shared := g.calls[key]
	if !shared {
		f = &flight{done: make(chan struct{})}
		g.calls[key] = f
		buildCtx := context.WithoutCancel(ctx)
		go func() {
			f.idx, f.from, f.err = build(buildCtx, &f.counts)
			g.mu.Lock()
			delete(g.calls, key)
			g.mu.Unlock()
			close(f.done)
		}()
	}
	g.mu.Unlock()
	defer f.counts.watch(progress)()
	select {
	case <-f.done:
		return f.idx, f.from, f.err
	case <-ctx.Done():
		return nil, "", ctx.Err()
	}
}
