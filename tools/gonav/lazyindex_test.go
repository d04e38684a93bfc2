package gonav

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestIndexOfProducesOnce: callers asking for a unit's index at once
// wait for one producer; a producer's failure is not kept, and the next
// caller produces it again; a waiter whose context ends stops waiting.
func TestIndexOfProducesOnce(t *testing.T) {
	want := &unitIndex{}
	var calls atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	u := &unit{id: "p"}
	u.setIndexer(func(ctx context.Context) (*unitIndex, error) {
		if calls.Add(1) == 1 {
			return nil, errors.New("the first attempt fails")
		}
		close(started)
		<-release
		return want, nil
	})
	if ix, err := u.indexOf(t.Context()); err == nil || ix != nil {
		t.Fatalf("first attempt: %v, %v; want its error", ix, err)
	}

	const callers = 8
	var wg sync.WaitGroup
	got := make([]*unitIndex, callers)
	for i := range callers {
		wg.Go(func() {
			ix, err := u.indexOf(t.Context())
			if err != nil {
				t.Errorf("caller %d: %v", i, err)
			}
			got[i] = ix
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-started: // one of them produces it
	case <-finished: // none waited: the checks below fail
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := u.indexOf(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a caller whose context ended while another produces: %v, want context.Canceled", err)
	}
	close(release)
	<-finished
	for i, ix := range got {
		if ix != want {
			t.Errorf("caller %d got %p, want %p", i, ix, want)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the producer ran %d times, want 2 (one failure, then once for %d callers)", n, callers)
	}
	if ix, err := u.indexOf(ctx); ix != want || err != nil {
		t.Errorf("after it is produced, a caller whose context ended gets %v, %v; want the index", ix, err)
	}
	if ix, err := (&unit{}).indexOf(t.Context()); ix != nil || err != nil {
		t.Errorf("a unit without an index: %v, %v", ix, err)
	}
}
