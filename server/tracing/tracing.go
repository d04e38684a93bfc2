// Package tracing makes OpenTelemetry spans of a server's calls: one span
// per call, continuing the caller's trace when the request carries one,
// and, inside it, the spans tools open for their expensive steps with
// [Start].
//
//	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
//	s := server.New(info, server.Options{Observers: []server.Middleware{tracing.Middleware(tp)}})
//
// The caller's trace context is the W3C traceparent (and tracestate) in
// the request's _meta, as the 2026-07-28 specification allows, or else in
// the HTTP request's headers. Nothing is exported unless the program
// gives a provider with an exporter: without one, [Start] costs a context
// lookup.
package tracing

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/repo-mcp/repo-mcp/server"
)

// scope names the spans repo-mcp makes.
const scope = "github.com/repo-mcp/repo-mcp"

// Middleware is a server observer ([server.Options.Observers]) that makes
// a span of every call with tracers from tp.
func Middleware(tp trace.TracerProvider) server.Middleware {
	tracer := tp.Tracer(scope)
	return func(next server.Handler) server.Handler {
		return func(ctx context.Context, req *server.Request) *server.Result {
			ctx = parent(ctx, req)
			ctx, span := tracer.Start(ctx, "tools/call "+req.Tool, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(
					attribute.String("mcp.method.name", "tools/call"),
					attribute.String("gen_ai.tool.name", req.Tool),
					attribute.String("repo_mcp.request_id", req.ID),
					attribute.String("repo_mcp.caller", req.Caller),
				))
			defer span.End()
			res := next(ctx, req)
			if res.Err != nil {
				span.SetAttributes(attribute.String("error.type", string(res.Err.Class)))
				if res.Err.Class == server.Internal || res.Err.Class == server.Transient {
					// The server's failures; the others are the caller's.
					span.SetStatus(codes.Error, string(res.Err.Class))
				}
			}
			if res.Refusal != "" {
				span.SetAttributes(attribute.String("repo_mcp.refusal", res.Refusal))
			}
			return res
		}
	}
}

// parent returns ctx with the caller's span context, from the request's
// _meta or, without one there, its HTTP headers.
func parent(ctx context.Context, req *server.Request) context.Context {
	tc := propagation.TraceContext{}
	if tp, ok := req.Meta["traceparent"].(string); ok {
		carrier := propagation.MapCarrier{"traceparent": tp}
		if ts, ok := req.Meta["tracestate"].(string); ok {
			carrier["tracestate"] = ts
		}
		return tc.Extract(ctx, carrier)
	}
	if req.Header != nil {
		return tc.Extract(ctx, propagation.HeaderCarrier(http.Header(req.Header)))
	}
	return ctx
}

// Start opens a span named name for a step of a call (resolving a
// revision, building an index, running a check), a child of the call's
// span in ctx, with the same provider; without one it is a no-op. End the
// span when the step ends.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(scope).Start(ctx, name, trace.WithAttributes(attrs...))
}
