package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
)

// TestHTTPAdvertisesModernOnly checks that over Streamable HTTP, as on
// stdio, server/discover and a -32022 refusal list only 2026-07-28: the
// version a request with per-request _meta can use (docs/protocol.md).
func TestHTTPAdvertisesModernOnly(t *testing.T) {
	s := newTestServer(server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{}))
	defer ts.Close()
	meta := func(version string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	for _, tt := range []struct {
		name, method, version, body string
		status                      int
		want                        string
	}{
		{"discover", "server/discover", "2026-07-28",
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta("2026-07-28") + `}}`,
			http.StatusOK, `"supportedVersions":["2026-07-28"]`},
		{"header names a version not served", "tools/list", "2099-01-01",
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta("2099-01-01") + `}}`,
			http.StatusBadRequest, `"supported":["2026-07-28"]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", tt.version)
			req.Header.Set("Mcp-Method", tt.method)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.want) {
				t.Errorf("%s: %d %s; want %d with %s", tt.method, resp.StatusCode, body, tt.status, tt.want)
			}
		})
	}
}
