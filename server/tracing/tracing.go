// Package tracing makes OpenTelemetry spans of a server's calls: one span
// per call, continuing the caller's trace when the request carries one,
// and, inside it, the spans tools open for their expensive steps with
// [Start]. A [Provider] sends the finished spans in batches over OTLP/HTTP
// (internal/otlphttp).
//
//	client, err := otlphttp.New(url, otlphttp.Resource{...})
//	tp := tracing.NewProvider(client, tracing.Options{Logger: logger})
//	defer tp.Shutdown(ctx)
//	s := server.New(info, server.Options{Observers: []server.Middleware{tracing.Middleware(tp)}})
//
// The caller's trace context is the W3C traceparent (and tracestate) in
// the request's _meta, as the 2026-07-28 specification allows, or else in
// the HTTP request's headers. Without a provider, [Start] costs a context
// lookup.
//
// This is the part of the OpenTelemetry SDK repo-mcp used, written here:
// the SDK, its exporter and the protobuf runtime under it cost every
// repo-mcp process a twentieth of its start, tracing or not. What it
// keeps of the SDK's configuration is listed in docs/fleet.md.
package tracing

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/otlphttp"
	"github.com/repo-mcp/repo-mcp/server"
)

// Attr is an attribute of a span.
type Attr = otlphttp.KeyValue

// String returns a string attribute.
func String(key, v string) Attr { return otlphttp.String(key, v) }

// Int returns an integer attribute.
func Int(key string, v int) Attr { return otlphttp.Int(key, int64(v)) }

// Span is a span in progress. A nil *Span, which Start returns outside a
// traced call, does nothing.
type Span struct {
	p       *Provider
	sampled bool // recorded and exported; else only a parent for its children

	mu    sync.Mutex
	data  otlphttp.Span
	ended bool
}

type spanKey struct{}

// fromContext returns the span ctx is in, or nil.
func fromContext(ctx context.Context) *Span {
	s, _ := ctx.Value(spanKey{}).(*Span)
	return s
}

// SetAttributes adds attributes to the span.
func (s *Span) SetAttributes(attrs ...Attr) {
	if s == nil || !s.sampled {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data.Attributes = append(s.data.Attributes, attrs...)
}

// SetError marks the span failed, with a short description.
func (s *Span) SetError(description string) {
	if s == nil || !s.sampled {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data.Status, s.data.StatusMessage = otlphttp.StatusCodeError, description
}

// End ends the span and queues it for export; calls after the first do
// nothing.
func (s *Span) End() {
	if s == nil || !s.sampled {
		return
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	s.data.End = time.Now()
	data := s.data
	s.mu.Unlock()
	s.p.enqueue(data)
}

// newSpan starts a span in trace traceID, the child of parentID (zero for
// a root), sampled or not.
func (p *Provider) newSpan(name string, kind otlphttp.SpanKind, traceID [16]byte, parentID [8]byte, sampled bool, attrs []Attr) *Span {
	s := &Span{p: p, sampled: sampled}
	s.data = otlphttp.Span{TraceID: traceID, SpanID: newSpanID(), ParentSpanID: parentID, Name: name, Kind: kind}
	if sampled {
		s.data.Start = time.Now()
		s.data.Attributes = attrs
	}
	return s
}

// newSpanID returns a random span id, never all zeros.
func newSpanID() (id [8]byte) {
	for id == ([8]byte{}) {
		v := rand.Uint64()
		for i := range id {
			id[i] = byte(v >> (8 * i))
		}
	}
	return id
}

// newTraceID returns a random trace id, never all zeros.
func newTraceID() (id [16]byte) {
	for id == ([16]byte{}) {
		a, b := rand.Uint64(), rand.Uint64()
		for i := range 8 {
			id[i], id[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
		}
	}
	return id
}

// Middleware is a server observer ([server.Options.Observers]) that makes
// a span of every call, with p.
func Middleware(p *Provider) server.Middleware {
	return func(next server.Handler) server.Handler {
		return func(ctx context.Context, req *server.Request) *server.Result {
			span := p.callSpan(req)
			defer span.End()
			res := next(context.WithValue(ctx, spanKey{}, span), req)
			if res.Err != nil {
				span.SetAttributes(String("error.type", string(res.Err.Class)))
				if res.Err.Class == server.Internal || res.Err.Class == server.Transient {
					// The server's failures; the others are the caller's.
					span.SetError(string(res.Err.Class))
				}
			}
			if res.Refusal != "" {
				span.SetAttributes(String("repo_mcp.refusal", res.Refusal))
			}
			return res
		}
	}
}

// callSpan starts the span of a call: the child of the caller's span when
// the request names one, else the root of a new trace.
func (p *Provider) callSpan(req *server.Request) *Span {
	attrs := []Attr{
		String("mcp.method.name", "tools/call"),
		String("gen_ai.tool.name", req.Tool),
		String("repo_mcp.request_id", req.ID),
		String("repo_mcp.caller", req.Caller),
	}
	name := "tools/call " + req.Tool
	r, ok := parent(req)
	if !ok {
		id := newTraceID()
		return p.newSpan(name, otlphttp.KindServer, id, [8]byte{}, p.sampler.sample(id, false, false), attrs)
	}
	s := p.newSpan(name, otlphttp.KindServer, r.traceID, r.spanID, p.sampler.sample(r.traceID, true, r.sampled), attrs)
	s.data.RemoteParent, s.data.TraceState = true, r.state
	return s
}

// Start opens a span named name for a step of a call (resolving a
// revision, building an index, running a check), a child of the call's
// span in ctx, with the same provider; outside a traced call it returns
// ctx and a nil span, which does nothing. End the span when the step ends.
func Start(ctx context.Context, name string, attrs ...Attr) (context.Context, *Span) {
	parent := fromContext(ctx)
	if parent == nil {
		return ctx, nil
	}
	s := parent.p.newSpan(name, otlphttp.KindInternal, parent.data.TraceID, parent.data.SpanID, parent.sampled, attrs)
	s.data.TraceState = parent.data.TraceState
	return context.WithValue(ctx, spanKey{}, s), s
}
