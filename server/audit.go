package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"maps"
	"time"
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
		s.auditLog.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
		return res
	}
}

// argumentsDigest is the SHA-256 of the canonical form of the arguments:
// keys sorted, no insignificant space, request_id left out (it differs
// between otherwise identical calls). Arguments that do not parse are
// hashed as they are.
func argumentsDigest(req *Request) string {
	canonical := []byte(req.Arguments)
	if req.parseErr == nil {
		v := req.parsed
		if m, ok := v.(map[string]any); ok {
			if _, has := m[requestIDField]; has {
				m = maps.Clone(m)
				delete(m, requestIDField)
				v = m
			}
		}
		if out, err := json.Marshal(v); err == nil { // maps marshal with sorted keys
			canonical = out
		}
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
