package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
	"github.com/repo-mcp/repo-mcp/server"
)

// TestSlowBodies sends request bodies slowly (slowloris): while they
// arrive they count toward the caller's calls in progress, so the caller's
// next request is refused with 429 and another caller's is not; and a body
// that does not arrive within the body timeout is answered 408 and its
// connection closed.
func TestSlowBodies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{
		{"counted", time.Hour},
		{"timed out", 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, MaxCallsPerCaller: 1})
			verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
				return &auth.TokenInfo{UserID: token}, nil
			}
			ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{Auth: &server.BearerAuth{Verify: verify}, BodyTimeout: tc.timeout}))
			defer ts.Close()
			call := mcphttp.Call(1, "echo", `{"text":"hi"}`, "")
			slow, err := mcphttp.Trickle(ts.URL+"/mcp", "Bearer alice", "echo", call, 10)
			if err != nil {
				t.Fatal(err)
			}
			if tc.timeout == time.Hour {
				// The slow body holds alice's one call: her next request is
				// refused once the server counts it. On a loaded machine the
				// server may read the slow request's headers late, after a
				// probe of alice's: the probe's own body or call then holds
				// her one call, and the slow request is refused or read
				// uncounted. So each probe comes after a pause, longer each
				// time, and one that is answered starts another slow request.
				status, header, body := 0, http.Header{}, ""
				deadline := time.Now().Add(2 * time.Minute)
				for pause := 10 * time.Millisecond; ; pause = min(2*pause, 2*time.Second) {
					time.Sleep(pause)
					if status, header, body = postCall(t, ts.URL, "Bearer alice", "echo", call); status == http.StatusTooManyRequests || time.Now().After(deadline) {
						break
					}
					slow.Close()
					if slow, err = mcphttp.Trickle(ts.URL+"/mcp", "Bearer alice", "echo", call, 10); err != nil {
						t.Fatal(err)
					}
				}
				if status != http.StatusTooManyRequests || header.Get("Retry-After") == "" || !strings.Contains(body, "too many calls in progress") {
					t.Errorf("alice's request beside her slow body: %d %v %s", status, header, body)
				}
				if status, _, body := postCall(t, ts.URL, "Bearer bob", "echo", call); status != http.StatusOK || strings.Contains(body, "isError") {
					t.Errorf("bob was refused for alice's slow body: %d %s", status, body)
				}
				slow.Close() // the body ends short: the server lets go of the count
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
					if status, _, body = postCall(t, ts.URL, "Bearer alice", "echo", call); status == http.StatusOK {
						break
					}
					time.Sleep(time.Millisecond)
				}
				if status != http.StatusOK || strings.Contains(body, "isError") {
					t.Errorf("alice is still refused after her slow request ended: %d %s", status, body)
				}
				return
			}
			resp, body, err := mcphttp.Wait(slow)
			if err != nil || resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "did not arrive within") {
				t.Fatalf("a body that never arrives: %v %v %s", resp, err, body)
			}
			if status, _, body := postCall(t, ts.URL, "Bearer alice", "echo", call); status != http.StatusOK || strings.Contains(body, "isError") {
				t.Errorf("alice is refused after her slow body timed out: %d %s", status, body)
			}
		})
	}
}
