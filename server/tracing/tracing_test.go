package tracing_test

import (
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/otlphttp"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/server/tracing"
)

const (
	metaTrace   = "0af7651916cd43dd8448eb211c80319c"
	headerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "b7ad6b7169203331"
)

func traceparent(traceID, flags string) string {
	return "00-" + traceID + "-" + callerSpan + "-" + flags
}

// recorder is an exporter that keeps every span it is sent.
type recorder struct {
	mu      sync.Mutex
	batches [][]otlphttp.Span
}

func (r *recorder) Upload(_ context.Context, spans []otlphttp.Span) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, slices.Clone(spans))
	return nil
}

func (r *recorder) spans() []otlphttp.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Concat(r.batches...)
}

// TestParent checks where a call's span takes its parent from: the
// request's _meta traceparent first, the HTTP header otherwise, else a new
// trace; that a caller's unsampled trace is not exported; and that a step
// a tool opens with Start is the call span's child.
func TestParent(t *testing.T) {
	tests := []struct {
		name      string
		meta      map[string]any
		header    http.Header
		wantTrace string // "" means a new trace
		wantState string
		wantNone  bool // the caller's trace is not sampled: no span exported
	}{
		{name: "no context"},
		{name: "_meta", meta: map[string]any{"traceparent": traceparent(metaTrace, "01"), "tracestate": "congo=t61rcWkgMzE"},
			wantTrace: metaTrace, wantState: "congo=t61rcWkgMzE"},
		{name: "header", header: http.Header{"Traceparent": {traceparent(headerTrace, "01")}, "Tracestate": {"a=1", "b=2"}},
			wantTrace: headerTrace, wantState: "a=1,b=2"},
		{name: "_meta before header", meta: map[string]any{"traceparent": traceparent(metaTrace, "01")},
			header: http.Header{"Traceparent": {traceparent(headerTrace, "01")}}, wantTrace: metaTrace},
		{name: "malformed _meta", meta: map[string]any{"traceparent": "00-zz-b7ad6b7169203331-01"}},
		{name: "not sampled", meta: map[string]any{"traceparent": traceparent(metaTrace, "00")}, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			tp := tracing.NewProvider(rec, tracing.Options{})
			step := func(ctx context.Context, _ *server.Request) *server.Result {
				_, span := tracing.Start(ctx, "step", tracing.Int("n", 3))
				span.End()
				return &server.Result{Err: &server.Error{Class: server.Internal, Message: "x"}}
			}
			tracing.Middleware(tp)(step)(context.Background(), &server.Request{ID: "r-1", Tool: "look", Meta: tt.meta, Header: tt.header})
			if err := tp.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans := rec.spans()
			if tt.wantNone {
				if len(spans) != 0 {
					t.Fatalf("%d spans exported of a trace the caller did not sample", len(spans))
				}
				return
			}
			if len(spans) != 2 {
				t.Fatalf("%d spans exported, want the step's and the call's", len(spans))
			}
			stepSpan, call := spans[0], spans[1]
			if call.Name != "tools/call look" || call.Kind != otlphttp.KindServer || stepSpan.Kind != otlphttp.KindInternal {
				t.Errorf("call span %q, kind %v; step kind %v", call.Name, call.Kind, stepSpan.Kind)
			}
			if stepSpan.ParentSpanID != call.SpanID || stepSpan.TraceID != call.TraceID {
				t.Errorf("the step's parent is %x in %x, not the call's span %x in %x", stepSpan.ParentSpanID, stepSpan.TraceID, call.SpanID, call.TraceID)
			}
			got := hex.EncodeToString(call.TraceID[:])
			switch {
			case tt.wantTrace == "" && (call.ParentSpanID != [8]byte{} || call.RemoteParent):
				t.Errorf("span continued trace %s, want a new one", got)
			case tt.wantTrace != "" && (got != tt.wantTrace || hex.EncodeToString(call.ParentSpanID[:]) != callerSpan || !call.RemoteParent):
				t.Errorf("trace %s parent %x, want %s %s", got, call.ParentSpanID, tt.wantTrace, callerSpan)
			}
			if call.TraceState != tt.wantState || stepSpan.TraceState != tt.wantState {
				t.Errorf("tracestate %q and %q, want %q", call.TraceState, stepSpan.TraceState, tt.wantState)
			}
			if call.Status != otlphttp.StatusCodeError || call.StatusMessage != "internal" {
				t.Errorf("status %v %q, want the internal error", call.Status, call.StatusMessage)
			}
			if call.End.Before(call.Start) || call.Start.IsZero() {
				t.Errorf("call from %v to %v", call.Start, call.End)
			}
		})
	}
}

// TestObserver checks the middleware in a server's chain, through the
// protocol: a refused call still has its span, with the refusal.
func TestObserver(t *testing.T) {
	rec := &recorder{}
	tp := tracing.NewProvider(rec, tracing.Options{})
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
	tp.Shutdown(context.Background())
	spans := rec.spans()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	attrs := map[string]otlphttp.KeyValue{}
	for _, a := range spans[0].Attributes {
		attrs[a.Key] = a
	}
	for k, v := range map[string]string{"gen_ai.tool.name": "look", "error.type": "permission_denied", "repo_mcp.refusal": "auth"} {
		if attrs[k] != tracing.String(k, v) {
			t.Errorf("span attribute %s: %+v, want %q", k, attrs[k], v)
		}
	}
	if spans[0].Status != otlphttp.StatusUnset {
		t.Errorf("a refusal is the caller's doing, yet the span's status is %v", spans[0].Status)
	}
}

// TestStartOutsideACall: a step outside a traced call makes no span.
func TestStartOutsideACall(t *testing.T) {
	ctx, span := tracing.Start(context.Background(), "step")
	if span != nil || ctx != context.Background() {
		t.Errorf("Start outside a call gave span %v", span)
	}
	span.SetAttributes(tracing.Int("n", 1))
	span.End() // a nil span does nothing
}
