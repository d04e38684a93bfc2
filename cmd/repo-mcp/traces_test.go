package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestTraceExport serves with --otlp-endpoint pointing at a collector the
// test runs, makes a call, and stops the server: its last batch holds the
// call's span, sent as OTLP/HTTP protobuf.
func TestTraceExport(t *testing.T) {
	root, _ := fixtureRepo(t)
	var mu sync.Mutex
	var names []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var data tracepb.TracesData // the wire form of ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &data) != nil {
			t.Errorf("the collector got %s %s (%s), %d bytes", r.Method, r.URL.Path, r.Header.Get("Content-Type"), len(body))
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range data.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
				}
			}
		}
	}))
	defer collector.Close()
	ctx := context.Background()
	cmd := exec.Command(repoMCP(t), "serve", "--index-cache", "off", "--workspace", "fx="+root, "--otlp-endpoint", collector.URL+"/v1/traces")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "trace-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "repo_info", Arguments: map[string]any{"workspace_id": "fx"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close() // the server sees its input end, and sends its last batch before it exits
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, n := range names {
		found = found || n == "tools/call repo_info"
	}
	if !found {
		t.Errorf("the collector got spans %q, not the call's", names)
	}
}
