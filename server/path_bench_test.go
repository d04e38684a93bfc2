package server

import (
	"context"
	"io"
	"log/slog"
	"testing"
)

type benchIn struct {
	Message string `json:"message"`
}

type benchOut struct {
	Text string `json:"text"`
}

// BenchmarkCallPath measures the framework's own work for one call of a
// trivial tool, without transport: the middleware chain, validation,
// decoding, audit and rendering.
func BenchmarkCallPath(b *testing.B) {
	s := New(Info{Name: "bench"}, Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	MustRegister(s, Tool{Name: "echo", Description: "d", Effect: ReadOnly},
		func(_ context.Context, _ *Request, in benchIn) (benchOut, error) {
			return benchOut{Text: in.Message}, nil
		})
	r := s.tools["echo"]
	args := []byte(`{"message":"hello"}`)
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"message":"hello"}}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, bad := checkFrame(line); bad != nil {
			b.Fatal(bad.message)
		}
		if res := r.handle(ctx, s.begin(r, args)); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// BenchmarkCheckFrame measures the frame guard on a tools/call of the
// 2026-07-28 era, as repo-mcp's read_file receives it.
func BenchmarkCheckFrame(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"repo-harness","version":"v0.1.0"}},"name":"read_file","arguments":{"workspace_id":"go","path":"src/net/http/server.go","max_bytes":1048576}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, bad := checkFrame(line); bad != nil {
			b.Fatal(bad.message)
		}
	}
}
