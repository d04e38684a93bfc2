package otlphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP endpoint that keeps what it is sent.
type collector struct {
	mu     sync.Mutex
	status int
	spans  []*tracepb.Span
	errs   []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	if ct := r.Header.Get("Content-Type"); r.Method != http.MethodPost || ct != "application/x-protobuf" {
		c.errs = append(c.errs, r.Method+" "+ct)
	}
	batch, err := decode(body)
	if err != nil {
		c.errs = append(c.errs, err.Error())
	}
	for _, rs := range batch {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	if c.status != 0 {
		http.Error(w, "collector says no", c.status)
	}
}

func export(t *testing.T, c *collector) error {
	t.Helper()
	srv := httptest.NewServer(c)
	defer srv.Close()
	client, err := New(srv.URL + "/v1/traces")
	if err != nil {
		t.Fatal(err)
	}
	exp, err := otlptrace.New(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	_, span := tp.Tracer("test").Start(context.Background(), "tools/call read_file")
	span.SetAttributes(attribute.String("mcp.tool", "read_file"))
	span.End()
	_, child := tp.Tracer("test").Start(context.Background(), "resolve")
	child.End()
	return exp.ExportSpans(context.Background(), rec.Ended())
}

func TestExport(t *testing.T) {
	c := &collector{}
	if err := export(t, c); err != nil {
		t.Fatal(err)
	}
	if len(c.errs) > 0 {
		t.Errorf("the collector could not read the request: %v", c.errs)
	}
	var names []string
	for _, s := range c.spans {
		names = append(names, s.Name)
		if s.Name == "tools/call read_file" && (len(s.Attributes) != 1 || s.Attributes[0].Value.GetStringValue() != "read_file" || len(s.TraceId) != 16) {
			t.Errorf("span %s: attributes %v, trace id %x", s.Name, s.Attributes, s.TraceId)
		}
	}
	if len(names) != 2 || names[0] != "tools/call read_file" || names[1] != "resolve" {
		t.Errorf("the collector got spans %q", names)
	}
}

func TestExportRefused(t *testing.T) {
	err := export(t, &collector{status: http.StatusBadRequest})
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusBadRequest || se.Body != "collector says no\n" {
		t.Errorf("a refused batch: %v", err)
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"http://collector:4318/v1/traces", true},
		{"https://collector.example/v1/traces", true},
		{"collector:4318", false},
		{"grpc://collector:4317", false},
		{"http:///v1/traces", false},
		{"http://[::1", false},
	} {
		if _, err := New(tc.url); (err == nil) != tc.ok {
			t.Errorf("New(%q): %v", tc.url, err)
		}
	}
}

// decode parses an ExportTraceServiceRequest field by field, as a
// collector that knows only that message would.
func decode(body []byte) ([]*tracepb.ResourceSpans, error) {
	var out []*tracepb.ResourceSpans
	for len(body) > 0 {
		num, typ, n := protowire.ConsumeTag(body)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		body = body[n:]
		if num != 1 || typ != protowire.BytesType {
			return nil, fmt.Errorf("field %d of type %d: ExportTraceServiceRequest has only resource_spans = 1", num, typ)
		}
		data, n := protowire.ConsumeBytes(body)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		body = body[n:]
		rs := &tracepb.ResourceSpans{}
		if err := proto.Unmarshal(data, rs); err != nil {
			return nil, err
		}
		out = append(out, rs)
	}
	return out, nil
}
