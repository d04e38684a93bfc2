package server

import (
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
)

// TestWarmStacks: calls one after the other run on one kept goroutine, a
// burst leaves at most maxIdle waiting, and run returns only once its
// function has.
func TestWarmStacks(t *testing.T) {
	tests := []struct {
		name      string
		maxIdle   int
		at, calls int // calls in flight at once, and in all
		wantIdle  int
	}{
		{"one at a time reuses one goroutine", 4, 1, 50, 1},
		{"a burst within the bound stays", 4, 3, 30, 3},
		{"a burst past the bound ends with it", 4, 10, 10, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWarmStacks(tt.maxIdle)
				ran := 0
				var mu sync.Mutex
				for i := 0; i < tt.calls; i += tt.at {
					release := make(chan struct{})
					var wg sync.WaitGroup
					for range tt.at {
						wg.Go(func() {
							w.run(func() {
								<-release
								mu.Lock()
								ran++
								mu.Unlock()
							})
						})
					}
					synctest.Wait() // every call is running, none idle
					close(release)
					wg.Wait()
				}
				synctest.Wait() // the goroutines have gone idle or ended
				if ran != tt.calls {
					t.Errorf("%d calls ran, want %d", ran, tt.calls)
				}
				idle := int(w.idle.Load())
				if idle != tt.wantIdle {
					t.Errorf("%d goroutines idle, want %d", idle, tt.wantIdle)
				}
				// End the idle goroutines, as the bubble requires: each
				// takes a call that ends it.
				for range idle {
					w.run(runtime.Goexit)
				}
			})
		})
	}
}
