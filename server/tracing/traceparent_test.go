package tracing

import (
	"strings"
	"testing"
)

func TestParseTraceparent(t *testing.T) {
	const id, span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	tests := []struct {
		tp      string
		ok      bool
		sampled bool
	}{
		{"00-" + id + "-" + span + "-01", true, true},
		{"00-" + id + "-" + span + "-00", true, false},
		{"00-" + id + "-" + span + "-03", true, true}, // unknown flags are kept out of the way
		{"01-" + id + "-" + span + "-01-more", true, true},
		{"01-" + id + "-" + span + "-01", true, true},
		{"00-" + id + "-" + span + "-01-more", false, false}, // version 00 has exactly four fields
		{"01-" + id + "-" + span + "-01more", false, false},
		{"ff-" + id + "-" + span + "-01", false, false},
		{"00-" + strings.ToUpper(id) + "-" + span + "-01", false, false},
		{"00-00000000000000000000000000000000-" + span + "-01", false, false},
		{"00-" + id + "-0000000000000000-01", false, false},
		{"00-" + id + "-" + span + "-0", false, false},
		{"00-" + id[:31] + "-" + span + "-01", false, false},
		{"00_" + id + "-" + span + "-01", false, false},
		{"0g-" + id + "-" + span + "-01", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		r, ok := parseTraceparent(tt.tp, "")
		if ok != tt.ok || r.sampled != tt.sampled {
			t.Errorf("%q: ok %v sampled %v; want %v %v", tt.tp, ok, r.sampled, tt.ok, tt.sampled)
		}
	}
	tp := "00-" + id + "-" + span + "-01"
	for _, tt := range []struct{ in, want string }{
		{"congo=t61rcWkgMzE,rojo=00f067aa0ba902b7", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"},
		{"a=1\nb=2", ""},
		{strings.Repeat("a=1,", 200), ""},
	} {
		if r, ok := parseTraceparent(tp, tt.in); !ok || r.state != tt.want {
			t.Errorf("tracestate %q: kept %q (ok %v); want %q", tt.in, r.state, ok, tt.want)
		}
	}
}
