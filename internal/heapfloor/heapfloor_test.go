package heapfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name               string
		live, roots, floor uint64
		want               int
	}{
		{"before the first collection", 0, 0, 32 * mib, 800},
		{"before the first collection, a low floor", 0, 0, 2 * mib, basePercent},
		{"small heap: the minimum heap is the floor", 1 * mib, 0, 32 * mib, 800},
		{"a heap whose goal is the floor", 4 * mib, 0, 32 * mib, 700},
		{"roots count", 4 * mib, 1 * mib, 32 * mib, 560},
		{"rounded up", 6 * mib, 0, 32 * mib, 434},
		{"half the floor is the default", 16 * mib, 0, 32 * mib, basePercent},
		{"above half the floor", 20 * mib, 0, 32 * mib, basePercent},
		{"above the floor", 64 * mib, 0, 32 * mib, basePercent},
		{"no floor", 4 * mib, 0, 0, basePercent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Percent(tt.live, tt.roots, tt.floor)
			if got != tt.want {
				t.Errorf("Percent(%d, %d, %d) = %d, want %d", tt.live, tt.roots, tt.floor, got, tt.want)
			}
			// The runtime's goal (mgcpacer.go's commit) is the floor (within
			// a percent's rounding), or above it where the default
			// percentage puts it.
			goal := max(tt.live+(tt.live+tt.roots)*uint64(got)/100, minHeap*uint64(got)/100)
			if goal < tt.floor || goal > tt.floor+(tt.live+tt.roots)/100 && got > basePercent {
				t.Errorf("goal %d with percent %d, floor %d", goal, got, tt.floor)
			}
		})
	}
}

func TestTuned(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"neither", nil, false},
		{"GOGC", map[string]string{"GOGC": "100"}, true},
		{"GOGC off", map[string]string{"GOGC": "off"}, true},
		{"GOMEMLIMIT", map[string]string{"GOMEMLIMIT": "1GiB"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// t.Setenv first, so that the variable is restored after the
			// test even when it is unset for it.
			for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
				t.Setenv(k, "")
				if v, ok := tt.env[k]; ok {
					t.Setenv(k, v)
				} else {
					unsetenv(t, k)
				}
			}
			if got := Tuned(); got != tt.want {
				t.Errorf("Tuned() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTunesAfterEachCollection: the tuner sets the percentage at once,
// then after each collection from the live heap it marked, and stop
// restores the default and ends the tuning.
func TestTunesAfterEachCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(basePercent))
	const floor = 256 << 20 // far above this test's live heap
	tuned := make(chan int, 1)
	tr := newTuner(floor)
	tr.tuned = func(p int) { tuned <- p }
	tr.start()
	if p, want := <-tuned, Percent(0, 0, floor); p != want {
		t.Fatalf("at start: percent %d, want %d", p, want)
	}
	for round := range 2 {
		runtime.GC()
		p := <-tuned
		// The goal is far above the heap: no collection runs meanwhile,
		// so the live heap is still the one the tuner read.
		live, roots := heapAndRoots()
		if want := Percent(live, roots, floor); p != want {
			t.Fatalf("after collection %d: percent %d, want %d", round, p, want)
		}
		if got := debug.SetGCPercent(p); got != p {
			t.Fatalf("after collection %d: the runtime's percent is %d, want %d", round, got, p)
		}
	}
	tr.stop()
	if got := debug.SetGCPercent(basePercent); got != basePercent {
		t.Errorf("after stop: percent %d, want %d", got, basePercent)
	}
	tr.tune() // as the cleanup armed before stop would
	select {
	case p := <-tuned:
		t.Errorf("tuned to %d after stop", p)
	default:
	}
}

func heapAndRoots() (live, roots uint64) {
	s := []metrics.Sample{{Name: liveMetric}, {Name: stacksMetric}, {Name: globalsMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64() + s[2].Value.Uint64()
}

// unsetenv unsets k for the rest of the test; t.Setenv has arranged for it
// to be restored.
func unsetenv(t *testing.T, k string) {
	t.Helper()
	if err := os.Unsetenv(k); err != nil {
		t.Fatal(err)
	}
}
