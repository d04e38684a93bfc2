package otlphttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

// collector is an OTLP/HTTP endpoint that keeps what it is sent, decoded
// with the upstream generated types (TracesData, which has the one field
// of ExportTraceServiceRequest, whose package links gRPC).
type collector struct {
	mu       sync.Mutex
	status   int
	requests []*tracepb.TracesData
	errs     []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	if ct := r.Header.Get("Content-Type"); r.Method != http.MethodPost || ct != "application/x-protobuf" {
		c.errs = append(c.errs, r.Method+" "+ct)
	}
	var req tracepb.TracesData
	if err := proto.Unmarshal(body, &req); err != nil {
		c.errs = append(c.errs, err.Error())
	}
	c.requests = append(c.requests, &req)
	if c.status != 0 {
		http.Error(w, "collector says no", c.status)
	}
}

var (
	t0       = time.Date(2026, 12, 2, 1, 0, 0, 123, time.UTC)
	resource = Resource{
		Attributes:   []KeyValue{String("service.name", "repo-mcp"), String("service.version", "v1.2.3")},
		Scope:        "github.com/repo-mcp/repo-mcp",
		ScopeVersion: "v1.2.3",
	}
	// spans holds a root, a child with every kind of attribute, an empty
	// string and an error status, and a span whose parent is remote.
	spans = []Span{
		{
			TraceID: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, SpanID: [8]byte{1, 1, 1, 1, 1, 1, 1, 1},
			Name: "tools/call read_file", Kind: KindServer, Start: t0, End: t0.Add(time.Millisecond),
			Attributes: []KeyValue{String("gen_ai.tool.name", "read_file")},
		},
		{
			TraceID: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, SpanID: [8]byte{2, 2, 2, 2, 2, 2, 2, 2},
			ParentSpanID: [8]byte{1, 1, 1, 1, 1, 1, 1, 1},
			Name:         "verify checks", Kind: KindInternal, Start: t0, End: t0.Add(2 * time.Second),
			Attributes: []KeyValue{Int("repo_mcp.checks", 3), Int("negative", -7), Bool("yes", true), Bool("no", false), String("empty", "")},
			Status:     StatusCodeError, StatusMessage: "internal",
		},
		{
			TraceID: [16]byte{0xff, 15: 1}, SpanID: [8]byte{3}, ParentSpanID: [8]byte{0xb7, 0xad}, RemoteParent: true,
			TraceState: "congo=t61rcWkgMzE", Name: "tools/call look", Kind: KindServer, Start: t0, End: t0,
		},
	}
)

func str(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}
func num(n int64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}
}
func boolean(b bool) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
}

// want is spans as the upstream types hold them.
func want() *tracepb.TracesData {
	ns := uint64(t0.UnixNano())
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "service.name", Value: str("repo-mcp")}, {Key: "service.version", Value: str("v1.2.3")}}},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: "github.com/repo-mcp/repo-mcp", Version: "v1.2.3"},
			Spans: []*tracepb.Span{
				{
					TraceId: spans[0].TraceID[:], SpanId: spans[0].SpanID[:], Flags: 0x01,
					Name: "tools/call read_file", Kind: tracepb.Span_SPAN_KIND_SERVER,
					StartTimeUnixNano: ns, EndTimeUnixNano: ns + 1e6,
					Attributes: []*commonpb.KeyValue{{Key: "gen_ai.tool.name", Value: str("read_file")}},
				},
				{
					TraceId: spans[1].TraceID[:], SpanId: spans[1].SpanID[:], ParentSpanId: spans[1].ParentSpanID[:], Flags: 0x101,
					Name: "verify checks", Kind: tracepb.Span_SPAN_KIND_INTERNAL,
					StartTimeUnixNano: ns, EndTimeUnixNano: ns + 2e9,
					Attributes: []*commonpb.KeyValue{{Key: "repo_mcp.checks", Value: num(3)}, {Key: "negative", Value: num(-7)},
						{Key: "yes", Value: boolean(true)}, {Key: "no", Value: boolean(false)}, {Key: "empty", Value: str("")}},
					Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "internal"},
				},
				{
					TraceId: spans[2].TraceID[:], SpanId: spans[2].SpanID[:], ParentSpanId: spans[2].ParentSpanID[:], Flags: 0x301,
					TraceState: "congo=t61rcWkgMzE", Name: "tools/call look", Kind: tracepb.Span_SPAN_KIND_SERVER,
					StartTimeUnixNano: ns, EndTimeUnixNano: ns,
				},
			},
		}},
	}}}
}

func upload(t *testing.T, c *collector) error {
	t.Helper()
	srv := httptest.NewServer(c)
	defer srv.Close()
	client, err := New(srv.URL+"/v1/traces", resource)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	return client.Upload(context.Background(), spans)
}

// TestUpload posts a batch to a collector that decodes it with the
// upstream OTLP types: every field of every span arrives as written.
func TestUpload(t *testing.T) {
	c := &collector{}
	if err := upload(t, c); err != nil {
		t.Fatal(err)
	}
	if len(c.errs) > 0 || len(c.requests) != 1 {
		t.Fatalf("the collector got %d requests: %v", len(c.requests), c.errs)
	}
	if diff := cmp.Diff(want(), c.requests[0], protocmp.Transform()); diff != "" {
		t.Errorf("the collector decoded (-want +got):\n%s", diff)
	}
}

// TestEncodeMatchesUpstream compares the bytes with the upstream
// encoder's, field order included, so that a collector that is strict
// about anything reads them as it reads the SDK's.
func TestEncodeMatchesUpstream(t *testing.T) {
	upstream, err := proto.MarshalOptions{Deterministic: true}.Marshal(want())
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(resource, spans); string(got) != string(upstream) {
		t.Errorf("encode wrote\n%x\nthe upstream encoder\n%x", got, upstream)
	}
}

func TestUploadRefused(t *testing.T) {
	err := upload(t, &collector{status: http.StatusBadRequest})
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
		if _, err := New(tc.url, Resource{}); (err == nil) != tc.ok {
			t.Errorf("New(%q): %v", tc.url, err)
		}
	}
}
