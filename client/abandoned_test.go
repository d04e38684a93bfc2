package client

import "testing"

func TestAbandonedIDsBounded(t *testing.T) {
	var a abandonedIDs
	for id := int64(1); id <= 3*maxAbandoned+1; id++ {
		a.add(id)
		if id%3 == 0 && !a.remove(id) { // answered late: forgotten at once
			t.Fatalf("remove(%d) = false just after add", id)
		}
	}
	if len(a.set) != maxAbandoned || len(a.order) > 2*maxAbandoned {
		t.Fatalf("set %d ids, order %d; want %d and at most %d", len(a.set), len(a.order), maxAbandoned, 2*maxAbandoned)
	}
	for _, tt := range []struct {
		id   int64
		want bool
	}{
		{1, false},                  // evicted, oldest first
		{3 * maxAbandoned, false},   // removed when answered
		{3*maxAbandoned - 1, true},  // kept
		{3*maxAbandoned - 1, false}, // a second answer is unknown
	} {
		if got := a.remove(tt.id); got != tt.want {
			t.Errorf("remove(%d) = %v; want %v", tt.id, got, tt.want)
		}
	}
}
