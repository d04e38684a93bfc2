package server

import (
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/jsonquote"
)

// auditWriter is the audit log's writer, shared by slog's JSON handler and
// the audit line's own encoder (appendAuditLine), so that lines written by
// the two never interleave and a writer that is not safe for concurrent use
// (a test's buffer) gets one line at a time.
type auditWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte // the line being written; guarded by mu
}

func (a *auditWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.Write(p)
}

// line writes the audit line of a call, as slog's JSON handler would have
// written a record of msg and attrs at level INFO made at t, and reports
// whether it did: false when an attribute is of a kind appendAuditLine does
// not write, for the caller to log it through slog instead.
func (a *auditWriter) line(t time.Time, msg string, attrs []slog.Attr) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := appendAuditLine(a.buf[:0], t, msg, attrs)
	if !ok {
		return false
	}
	a.buf = b
	a.w.Write(b) // as slog's handler, whose errors the logger drops
	return true
}

// appendAuditLine appends the line slog.NewJSONHandler(w, nil) writes for
// a record of msg and attrs at level INFO made at t, byte for byte
// (TestAuditLineIsSlogs), without slog's reflection and per-record
// allocations: the audit line through slog was about 3% of a small read's
// server CPU. ok is false for what it does not write as slog does: an
// attribute that is not a string, integer, boolean or duration (a group,
// a LogValuer, any value), an empty key, a string holding a backspace or a
// form feed (which slog escapes as \u0008 and \u000c and jsonquote as \b
// and \f), and a year outside 0-9999.
func appendAuditLine(b []byte, t time.Time, msg string, attrs []slog.Attr) ([]byte, bool) {
	if y := t.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":`...)
	b, ok := appendSlogString(b, msg)
	if !ok {
		return b, false
	}
	for _, a := range attrs {
		if a.Key == "" {
			return b, false
		}
		b = append(b, ',')
		if b, ok = appendSlogString(b, a.Key); !ok {
			return b, false
		}
		b = append(b, ':')
		v := a.Value
		switch v.Kind() {
		case slog.KindString:
			b, ok = appendSlogString(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindDuration:
			b = strconv.AppendInt(b, int64(v.Duration()), 10)
		default:
			return b, false
		}
		if !ok {
			return b, false
		}
	}
	return append(b, "}\n"...), true
}

// appendSlogString appends s quoted as slog's JSON handler quotes it, which
// is jsonquote.AppendText's quoting but for the backspace and the form
// feed: ok is false for a string holding either.
func appendSlogString(b []byte, s string) ([]byte, bool) {
	if strings.ContainsAny(s, "\b\f") {
		return b, false
	}
	return jsonquote.AppendText(b, s), true
}
