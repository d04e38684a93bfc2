package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/jsonquote"
)

// audit writes one line per call, after it ends: who called what, on which
// workspace, with which arguments (as a digest: arguments may hold file
// contents), how long it took, how big the answer was and how it ended.
func (s *Server) audit(next Handler) Handler {
	return func(ctx context.Context, req *Request) *Result {
		res := next(ctx, req)
		outcome := "ok"
		switch {
		case ctx.Err() != nil:
			// The client cancelled the call (notifications/cancelled, or
			// over HTTP a closed connection): whatever the tool returned
			// is never sent, so "ok" would misreport it.
			outcome = "cancelled"
		case res.Err != nil:
			outcome = string(res.Err.Class)
		case res.ask != nil:
			outcome = "input_required"
		}
		attrs := []slog.Attr{
			slog.String("request_id", req.ID),
			slog.String("rpc_id", req.RPCID),
			slog.String("protocol_version", req.ProtocolVersion),
			slog.String("caller", req.Caller),
			slog.String("tool", req.Tool),
			slog.String("args_sha256", argumentsDigest(req)),
			slog.Int64("duration_ms", time.Since(req.started).Milliseconds()),
			slog.Int("result_bytes", res.size()),
			slog.String("outcome", outcome),
			slog.Bool("truncated", res.Truncated),
		}
		if a, ok := req.input.(Audited); ok {
			attrs = append(attrs, a.AuditAttrs()...)
		}
		if res.Err != nil && res.Err.TraceID != "" {
			attrs = append(attrs, slog.String("trace_id", res.Err.TraceID))
		}
		if s.opts.AuditArguments {
			attrs = append(attrs, slog.String("arguments", string(req.Arguments)))
		}
		if !s.auditOut.line(time.Now(), "tool call", attrs) {
			s.auditLog.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
		}
		return res
	}
}

// argumentsDigest is the SHA-256 of the canonical form of the arguments:
// keys sorted, no insignificant space, request_id left out (it differs
// between otherwise identical calls), as json.Marshal writes the parsed
// value. Arguments that do not parse are hashed as they are.
func argumentsDigest(req *Request) string {
	canonical := []byte(req.Arguments)
	if req.parseErr == nil {
		if out, ok := appendCanonical(make([]byte, 0, len(req.Arguments)), req.parsed, requestIDField); ok {
			canonical = out
		} else if out, err := json.Marshal(withoutRequestID(req.parsed)); err == nil { // maps marshal with sorted keys
			canonical = out
		}
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

func withoutRequestID(v any) any {
	if m, ok := v.(map[string]any); ok {
		if _, has := m[requestIDField]; has {
			m = maps.Clone(m)
			delete(m, requestIDField)
			return m
		}
	}
	return v
}

// appendCanonical appends v as json.Marshal writes it, without the member
// skip of the outermost object, for the values parsed arguments hold
// (objects, arrays, strings, json.Number, booleans, null): json.Marshal
// reflects on each, which was a twentieth of a small read's CPU. ok is
// false for any other value.
func appendCanonical(b []byte, v any, skip string) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return jsonquote.Append(b, v), true
	case json.Number:
		if v == "" {
			return append(b, '0'), true // as json.Marshal writes it
		}
		return append(b, v...), true
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendCanonical(b, e, ""); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		b = append(b, '{')
		first := true
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if k == skip && skip != "" {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(jsonquote.Append(b, k), ':')
			var ok bool
			if b, ok = appendCanonical(b, v[k], ""); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}
