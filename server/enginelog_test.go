package server_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
)

// TestEngineSessionLogsAtDebug checks that the engine's per-request session
// messages reach the server's log at debug level only: a stateless HTTP
// request is a session of its own, and info lines for each would flood
// the operator's log.
func TestEngineSessionLogsAtDebug(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`
	tests := []struct {
		level     slog.Level
		wantLines bool
	}{
		{slog.LevelInfo, false},
		{slog.LevelDebug, true},
	}
	for _, tt := range tests {
		t.Run(tt.level.String(), func(t *testing.T) {
			var log syncBuffer
			logger := slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: tt.level}))
			s := newTestServer(server.Options{Logger: logger, Audit: io.Discard})
			ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{}))
			defer ts.Close()
			for range 3 {
				if status, _, body := postCall(t, ts.URL, "", "echo", call); status != 200 {
					t.Fatalf("status %d: %s", status, body)
				}
			}
			got := log.String()
			if strings.Contains(got, `"level":"INFO"`) {
				t.Errorf("the engine logged at info level:\n%s", got)
			}
			if has := strings.Contains(got, `"level":"DEBUG"`) && strings.Contains(got, "session"); has != tt.wantLines {
				t.Errorf("session lines at debug: %v, want %v; log:\n%s", has, tt.wantLines, got)
			}
		})
	}
}
