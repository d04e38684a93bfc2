package tracing_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/server/tracing"
)

const (
	metaTrace   = "0af7651916cd43dd8448eb211c80319c"
	headerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
)

func traceparent(traceID string) string { return "00-" + traceID + "-b7ad6b7169203331-01" }

// TestParent checks where a call's span takes its parent from: the
// request's _meta traceparent first, the HTTP header otherwise, else a new
// trace; and that a step a tool opens with Start is the call span's child.
func TestParent(t *testing.T) {
	tests := []struct {
		name      string
		meta      map[string]any
		header    http.Header
		wantTrace string // "" means a new trace
	}{
		{"no context", nil, nil, ""},
		{"_meta", map[string]any{"traceparent": traceparent(metaTrace)}, nil, metaTrace},
		{"header", nil, http.Header{"Traceparent": {traceparent(headerTrace)}}, headerTrace},
		{"_meta before header", map[string]any{"traceparent": traceparent(metaTrace)},
			http.Header{"Traceparent": {traceparent(headerTrace)}}, metaTrace},
		{"malformed _meta", map[string]any{"traceparent": "00-zz-b7ad6b7169203331-01"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			step := func(ctx context.Context, _ *server.Request) *server.Result {
				_, span := tracing.Start(ctx, "step")
				span.End()
				return &server.Result{Err: &server.Error{Class: server.Internal, Message: "x"}}
			}
			tracing.Middleware(tp)(step)(context.Background(), &server.Request{ID: "r-1", Tool: "look", Meta: tt.meta, Header: tt.header})
			spans := rec.Ended()
			if len(spans) != 2 {
				t.Fatalf("%d spans ended, want the step's and the call's", len(spans))
			}
			stepSpan, call := spans[0], spans[1]
			if call.Name() != "tools/call look" || call.SpanKind() != trace.SpanKindServer {
				t.Errorf("call span %q, kind %v", call.Name(), call.SpanKind())
			}
			if stepSpan.Parent().SpanID() != call.SpanContext().SpanID() {
				t.Errorf("the step's parent is %v, not the call's span", stepSpan.Parent().SpanID())
			}
			got := call.SpanContext().TraceID().String()
			switch {
			case tt.wantTrace == "" && call.Parent().IsValid():
				t.Errorf("span continued trace %s, want a new one", call.Parent().TraceID())
			case tt.wantTrace != "" && got != tt.wantTrace:
				t.Errorf("trace %s, want %s", got, tt.wantTrace)
			}
			if call.Status().Description != "internal" {
				t.Errorf("status %+v, want the internal error", call.Status())
			}
		})
	}
}

// TestObserver checks the middleware in a server's chain, through the
// protocol: a refused call still has its span, with the refusal.
func TestObserver(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	s := server.New(server.Info{Name: "t"}, server.Options{
		Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Observers: []server.Middleware{tracing.Middleware(tp)},
		Authorize: func(context.Context, *server.Request) error {
			return server.Errorf(server.PermissionDenied, "no")
		},
	})
	type empty struct{}
	server.MustRegister(s, server.Tool{Name: "look", Description: "Looks.", Effect: server.ReadOnly, Action: "read"},
		func(context.Context, *server.Request, empty) (empty, error) { return empty{}, nil })
	servertest.Start(t, s).Call("look", map[string]any{})
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	attrs := map[string]string{}
	for _, a := range spans[0].Attributes() {
		attrs[string(a.Key)] = a.Value.Emit()
	}
	if attrs["gen_ai.tool.name"] != "look" || attrs["error.type"] != "permission_denied" || attrs["repo_mcp.refusal"] != "auth" {
		t.Errorf("span attributes %v", attrs)
	}
}
