package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
)

func TestHTTPGuard(t *testing.T) {
	s := newTestServer(server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, MaxFrameBytes: 4096})
	ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{AllowedOrigins: []string{"https://app.example"}}))
	defer ts.Close()
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`
	tests := []struct {
		name       string
		host       string
		origin     string
		body       string
		wantStatus int
		wantInBody string
	}{
		{"good call", "", "", call, 200, `"text":"hi"`},
		{"allowed origin", "", "https://app.example", call, 200, `"text":"hi"`},
		{"loopback origin", "", "http://localhost:5173", call, 200, `"text":"hi"`},
		{"foreign origin", "", "https://evil.example", call, 403, "Origin"},
		{"null origin", "", "null", call, 403, "Origin"},
		{"rebinding host", "evil.example:80", "", call, 403, "Host"},
		{"not JSON", "", "", "this is not json", 400, `"code":-32700`},
		{"not JSON-RPC", "", "", `{"id":3,"method":"ping"}`, 400, `"id":3`},
		{"oversized", "", "", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 5000) + `"}}}`, 413, `"id":9`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "echo")
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(string(body), tt.wantInBody) {
				t.Errorf("status %d, body %s; want %d containing %s", resp.StatusCode, body, tt.wantStatus, tt.wantInBody)
			}
			if resp.StatusCode >= 400 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				var m map[string]any
				if err := json.Unmarshal(body, &m); err != nil || m["jsonrpc"] != "2.0" {
					t.Errorf("error body is not a JSON-RPC response: %s", body)
				}
			}
		})
	}
}

func TestHTTPAuditNamesRPCID(t *testing.T) {
	var audit syncBuffer
	s := newTestServer(server.Options{Logger: slog.New(slog.DiscardHandler), Audit: &audit})
	ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{}))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.github.repo-mcp/rpc-id":"spoofed"},"name":"who","arguments":{"workspace_id":"w"}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "who")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.Contains(audit.String(), `"rpc_id":"\"abc\""`) || strings.Contains(audit.String(), "spoofed") {
		t.Errorf("audit line does not name the real JSON-RPC id:\n%s", audit.String())
	}
}
