package tracing

import (
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
)

// remote is the caller's span, from a W3C traceparent.
type remote struct {
	traceID [16]byte
	spanID  [8]byte
	sampled bool
	state   string // the tracestate, passed on as it came
}

// parent returns the caller's span context, from the request's _meta or,
// without a traceparent there, its HTTP headers; ok is false when neither
// holds a valid one.
func parent(req *server.Request) (remote, bool) {
	if tp, ok := req.Meta["traceparent"].(string); ok {
		ts, _ := req.Meta["tracestate"].(string)
		return parseTraceparent(tp, ts)
	}
	if tp := http.Header(req.Header).Get("Traceparent"); tp != "" {
		return parseTraceparent(tp, strings.Join(http.Header(req.Header).Values("Tracestate"), ","))
	}
	return remote{}, false
}

// maxTraceState bounds the tracestate passed on, as W3C Trace Context
// allows a vendor to (32 members of at most 256 bytes would be 8 KiB).
const maxTraceState = 512

// parseTraceparent reads "version-traceid-parentid-flags" as W3C Trace
// Context level 1 defines it: lower-case hex, neither id all zeros,
// version ff invalid, and a later version allowed more fields after the
// flags. A tracestate that is too long or holds control bytes is dropped;
// the parent is kept.
func parseTraceparent(tp, ts string) (remote, bool) {
	var r remote
	if len(tp) < 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-' || !lowerHex(tp[:2]) || tp[:2] == "ff" {
		return r, false
	}
	if len(tp) > 55 && (tp[:2] == "00" || tp[55] != '-') {
		return r, false
	}
	if !lowerHex(tp[3:35]) || !lowerHex(tp[36:52]) || !lowerHex(tp[53:55]) {
		return r, false
	}
	hex.Decode(r.traceID[:], []byte(tp[3:35]))
	hex.Decode(r.spanID[:], []byte(tp[36:52]))
	if r.traceID == ([16]byte{}) || r.spanID == ([8]byte{}) {
		return r, false
	}
	var flags [1]byte
	hex.Decode(flags[:], []byte(tp[53:55]))
	r.sampled = flags[0]&1 == 1
	if len(ts) <= maxTraceState && !strings.ContainsFunc(ts, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		r.state = ts
	}
	return r, true
}

func lowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
