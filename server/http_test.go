package server_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestHTTPBearerAuth checks that a server with BearerAuth refuses requests
// without a good token, makes the token's user the caller, and keeps one
// caller from answering another's question.
func TestHTTPBearerAuth(t *testing.T) {
	var audit syncBuffer
	users := map[string]*auth.TokenInfo{
		"alice-token":   {UserID: "alice"},
		"bob-token":     {UserID: "bob", Expiration: time.Now().Add(time.Hour)},
		"expired-token": {UserID: "carol", Expiration: time.Now().Add(-time.Minute)},
		"nobody-token":  {},
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if info, ok := users[token]; ok {
			return info, nil
		}
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	s := newTestServer(server.Options{Logger: slog.New(slog.DiscardHandler), Audit: &audit, Caller: "operator"})
	type headerOut struct {
		Authorization string `json:"authorization"`
		Accept        string `json:"accept"`
	}
	server.MustRegister(s, server.Tool{Name: "header", Description: "Shows the request header.", Effect: server.ReadOnly},
		func(_ context.Context, req *server.Request, _ struct{}) (headerOut, error) {
			return headerOut{req.Header.Get("Authorization"), req.Header.Get("Accept")}, nil
		})
	ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{Auth: &server.BearerAuth{Verify: verify}}))
	defer ts.Close()

	post := func(t *testing.T, authorization, tool, body string) (int, http.Header, string) {
		t.Helper()
		return postCall(t, ts.URL, authorization, tool, body)
	}
	whoCall := mcphttp.Call(1, "who", `{"workspace_id":"w"}`, "")

	for _, tt := range []struct {
		name, authorization string
		wantStatus          int
		wantInBody          string
	}{
		{"no token", "", 401, ""},
		{"basic credentials", "Basic YWxpY2U6cHc=", 401, ""},
		{"unknown token", "Bearer guess", 401, "invalid token"},
		{"expired token", "Bearer expired-token", 401, "expired"},
		{"token without a user", "Bearer nobody-token", 500, "without a user"},
		{"alice", "Bearer alice-token", 200, `"caller":"alice"`},
		{"bob, scheme in another case", "bearer bob-token", 200, `"caller":"bob"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, header, body := post(t, tt.authorization, "who", whoCall)
			if status != tt.wantStatus || !strings.Contains(body, tt.wantInBody) {
				t.Fatalf("status %d, body %s; want %d containing %s", status, body, tt.wantStatus, tt.wantInBody)
			}
			if challenge := header.Get("WWW-Authenticate"); status == 401 && (!strings.HasPrefix(challenge, "Bearer ") ||
				strings.Contains(challenge, "invalid_token") != strings.HasPrefix(tt.authorization, "Bearer ")) {
				t.Errorf("401 without the right Bearer challenge: %q", challenge)
			}
			if strings.Contains(body, "operator") {
				t.Errorf("a call over authenticated HTTP was made for the operator: %s", body)
			}
		})
	}
	if strings.Contains(audit.String(), `"caller":"operator"`) || !strings.Contains(audit.String(), `"caller":"alice"`) {
		t.Errorf("audit does not name the token's users:\n%s", audit.String())
	}

	t.Run("tools never see the credential", func(t *testing.T) {
		call := mcphttp.Call(4, "header", `{}`, "")
		_, _, body := post(t, "Bearer alice-token", "header", call)
		if strings.Contains(body, "alice-token") || !strings.Contains(body, `"accept":"application/json`) {
			t.Errorf("the tool saw %s", body)
		}
	})

	t.Run("a question is answered only by its caller", func(t *testing.T) {
		ask := mcphttp.Call(2, "confirm", `{"digest":"abc"}`, "")
		_, _, body := post(t, "Bearer alice-token", "confirm", ask)
		var asked struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &asked); err != nil || asked.Result.RequestState == "" {
			t.Fatalf("no requestState in %s (%v)", body, err)
		}
		answer := mcphttp.Call(3, "confirm", `{"digest":"abc"}`,
			`"inputResponses":{"confirm":{"action":"accept"}},"requestState":"`+asked.Result.RequestState+`"`)
		if _, _, body := post(t, "Bearer bob-token", "confirm", answer); !strings.Contains(body, "requestState is not one") {
			t.Errorf("bob answered alice's question: %s", body)
		}
		if _, _, body := post(t, "Bearer alice-token", "confirm", answer); !strings.Contains(body, `"confirmed":true`) {
			t.Errorf("alice could not answer her own question: %s", body)
		}
	})
}

// TestMaxCallsPerCaller checks that a caller with its quota of calls in
// progress is refused as transient, and that other callers are not.
func TestMaxCallsPerCaller(t *testing.T) {
	s := newTestServer(server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, MaxCallsPerCaller: 1})
	started, release := make(chan struct{}), make(chan struct{})
	server.MustRegister(s, server.Tool{Name: "block", Description: "Waits to be released.", Effect: server.ReadOnly},
		func(context.Context, *server.Request, struct{}) (struct{}, error) {
			started <- struct{}{}
			<-release
			return struct{}{}, nil
		})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token}, nil
	}
	ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{Auth: &server.BearerAuth{Verify: verify}}))
	defer ts.Close()
	call := func(tool string) string {
		if tool == "echo" {
			return mcphttp.Call(1, tool, `{"text":"hi"}`, "")
		}
		return mcphttp.Call(1, tool, `{}`, "")
	}
	done := make(chan string)
	go func() {
		_, _, body := postCall(t, ts.URL, "Bearer alice", "block", call("block"))
		done <- body
	}()
	<-started
	if _, _, body := postCall(t, ts.URL, "Bearer alice", "echo", call("echo")); !strings.Contains(body, "transient: too many calls in progress") {
		t.Errorf("alice's second call: %s", body)
	}
	if _, _, body := postCall(t, ts.URL, "Bearer bob", "echo", call("echo")); strings.Contains(body, "isError") {
		t.Errorf("bob was refused for alice's calls: %s", body)
	}
	close(release)
	if body := <-done; strings.Contains(body, "isError") {
		t.Errorf("alice's first call: %s", body)
	}
	if _, _, body := postCall(t, ts.URL, "Bearer alice", "echo", call("echo")); strings.Contains(body, "isError") {
		t.Errorf("alice is still refused after her call ended: %s", body)
	}
}

// postCall posts one tools/call to the server at url and returns the
// status, header and body of the answer.
func postCall(t *testing.T, url, authorization, tool, body string) (int, http.Header, string) {
	t.Helper()
	resp, out, err := mcphttp.Post(url+"/mcp", authorization, tool, body)
	if err != nil {
		t.Error(err)
		return 0, nil, ""
	}
	return resp.StatusCode, resp.Header, string(out)
}
