package bufpool

import (
	"testing"
)

// TestGetPut checks which buffer Get returns after a series of Puts: the
// smallest free one large enough, never one too small, and nothing beyond
// what the pool keeps.
func TestGetPut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keep    int
		maxCap  int
		put     []int // capacities given back, in order
		get     int   // then Get(get)
		wantCap int   // the capacity Get returns
		reused  bool  // whether it is one of those given back
	}{
		{"empty pool", 2, 1 << 20, nil, 100, 100, false},
		{"one large enough", 2, 1 << 20, []int{200}, 100, 200, true},
		{"too small", 2, 1 << 20, []int{50}, 100, 100, false},
		{"smallest fitting", 3, 1 << 20, []int{400, 150, 300}, 100, 150, true},
		{"over maxCap dropped", 2, 1000, []int{2000}, 100, 100, false},
		{"full: smallest dropped", 2, 1 << 20, []int{100, 300, 200}, 150, 200, true},
		{"full: smaller one not kept", 2, 1 << 20, []int{300, 400, 100}, 100, 300, true},
		{"zero cap ignored", 2, 1 << 20, []int{0}, 10, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(tc.keep, tc.maxCap)
			given := map[*byte]bool{}
			for _, c := range tc.put {
				b := make([]byte, min(c, 3), c)
				if c > 0 {
					given[&b[:1][0]] = true
				}
				p.Put(b)
			}
			if len(p.free) > tc.keep {
				t.Fatalf("%d free buffers kept, want at most %d", len(p.free), tc.keep)
			}
			b := p.Get(tc.get)
			if len(b) != 0 || cap(b) != tc.wantCap {
				t.Fatalf("Get(%d): len %d cap %d, want len 0 cap %d", tc.get, len(b), cap(b), tc.wantCap)
			}
			if got := given[&b[:1][0]]; got != tc.reused {
				t.Fatalf("reused %v, want %v", got, tc.reused)
			}
		})
	}
}

// TestGetTakesTheBufferOut checks that a buffer Get returned is not
// returned again before it is given back.
func TestGetTakesTheBufferOut(t *testing.T) {
	p := New(2, 1<<20)
	p.Put(make([]byte, 0, 100))
	a, b := p.Get(10), p.Get(10)
	if &a[:1][0] == &b[:1][0] {
		t.Fatal("one buffer returned by two Gets")
	}
}

// TestNilPool checks that a nil pool gives new buffers and keeps none.
func TestNilPool(t *testing.T) {
	var p *Pool
	b := p.Get(10)
	p.Put(b)
	if c := p.Get(5); len(c) != 0 || cap(c) != 5 {
		t.Fatalf("Get(5) from a nil pool: len %d cap %d", len(c), cap(c))
	}
}
