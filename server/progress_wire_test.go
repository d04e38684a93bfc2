package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

type stepsIn struct {
	N int `json:"n" jsonschema:"minimum=1,maximum=1000"`
}

type stepsOut struct {
	Steps int `json:"steps"`
}

// steps reports each of its n steps as progress, as fast as it can.
func steps(_ context.Context, req *server.Request, in stepsIn) (stepsOut, error) {
	for i := 1; i <= in.N; i++ {
		req.Progress(float64(i), float64(in.N), fmt.Sprintf("step %d", i))
	}
	return stepsOut{Steps: in.N}, nil
}

func newProgressServer(t *testing.T) *server.Server {
	t.Helper()
	s := server.New(server.Info{Name: "progress", Version: "v0"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	if err := server.Register(s, server.Tool{Name: "steps", Description: "Counts steps.", Effect: server.ReadOnly}, steps); err != nil {
		t.Fatal(err)
	}
	return s
}

// message is a JSON-RPC message as the progress tests read them.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      float64         `json:"progress"`
		Total         float64         `json:"total"`
		Message       *string         `json:"message"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

const (
	modernMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
)

// stepsCall is a tools/call of steps with n steps; meta holds the members
// of its _meta.
func stepsCall(id, n int, meta string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":{%s},"name":"steps","arguments":{"n":%d}}}`, id, meta, n)
}

// TestProgressStdio calls a tool that reports progress over stdio in each
// era, with and without a progress token, and checks what arrives before
// the response.
func TestProgressStdio(t *testing.T) {
	tests := []struct {
		name      string
		handshake string // sent first, its reply skipped
		meta      string
		token     string // as JSON; "" for none
		noMessage bool
	}{
		{name: "2026-07-28 string token", meta: modernMeta + `,"progressToken":"p-1"`, token: `"p-1"`},
		{name: "2026-07-28 integer token", meta: modernMeta + `,"progressToken":7`, token: `7`},
		{name: "2026-07-28 without token", meta: modernMeta},
		{name: "2025-11-25", handshake: fmt.Sprintf(initialize, "2025-11-25"), meta: `"progressToken":"legacy"`, token: `"legacy"`},
		{name: "2024-11-05 has no message", handshake: fmt.Sprintf(initialize, "2024-11-05"), meta: `"progressToken":3`, token: `3`, noMessage: true},
		{name: "2025-11-25 without token", handshake: fmt.Sprintf(initialize, "2025-11-25"), meta: `"other":1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			serverIn, clientOut := io.Pipe()
			clientIn, serverOut := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- newProgressServer(t).Serve(context.Background(), serverIn, serverOut) }()
			lines := bufio.NewScanner(clientIn)
			send := func(line string) {
				if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			if tt.handshake != "" {
				send(tt.handshake)
				if !lines.Scan() {
					t.Fatal("no reply to initialize")
				}
				send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			const n = 50
			send(stepsCall(1, n, tt.meta))
			var got []message
			for lines.Scan() {
				var m message
				if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
					t.Fatalf("%s: %v", lines.Bytes(), err)
				}
				got = append(got, m)
				if m.Method == "" {
					break
				}
			}
			clientOut.Close()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			checkProgress(t, got, tt.token, n, tt.noMessage)
		})
	}
}

// checkProgress checks the messages a call got, its response last: with a
// token, notifications/progress for it, increasing, the last one for all
// n steps; without, none.
func checkProgress(t *testing.T, got []message, token string, n int, noMessage bool) {
	t.Helper()
	if len(got) == 0 || got[len(got)-1].Result == nil {
		t.Fatalf("the call ended without a result: %+v", got)
	}
	notes := got[:len(got)-1]
	if token == "" {
		if len(notes) > 0 {
			t.Fatalf("%d notifications for a call without a progress token", len(notes))
		}
		return
	}
	if len(notes) == 0 {
		t.Fatal("no progress notification before the result")
	}
	// The tool reports 50 steps at once: the throttle lets out the first
	// and the last, and more only if the machine stalls between them.
	if len(notes) >= n {
		t.Errorf("%d notifications for %d reports made at once: not throttled", len(notes), n)
	}
	prev := 0.0
	for _, m := range notes {
		p := m.Params
		if m.Method != "notifications/progress" || string(p.ProgressToken) != token || p.Total != float64(n) {
			t.Errorf("got %s token %s total %v; want notifications/progress, token %s, total %d", m.Method, p.ProgressToken, p.Total, token, n)
		}
		if p.Progress <= prev {
			t.Errorf("progress %v after %v: not increasing", p.Progress, prev)
		}
		prev = p.Progress
		if noMessage != (p.Message == nil) {
			t.Errorf("message %v in a session that %s have one", p.Message, map[bool]string{true: "cannot", false: "should"}[noMessage])
		}
	}
	if last := notes[len(notes)-1].Params; last.Progress != float64(n) {
		t.Errorf("last notification says %v of %d: the final report was not sent", last.Progress, n)
	}
}

// TestProgressHTTP calls the tool over Streamable HTTP: with a progress
// token the response is an SSE stream carrying the notifications before
// the result, in both eras; without one it stays a single JSON body.
func TestProgressHTTP(t *testing.T) {
	ts := httptest.NewServer(newProgressServer(t).HTTPHandler(server.HTTPOptions{}))
	defer ts.Close()
	tests := []struct {
		name, version, meta, token string
		wantType                   string
	}{
		{"2026-07-28", "2026-07-28", modernMeta + `,"progressToken":"h-1"`, `"h-1"`, "text/event-stream"},
		{"2026-07-28 without token", "2026-07-28", modernMeta, "", "application/json"},
		{"2025-11-25", "2025-11-25", `"progressToken":12`, `12`, "text/event-stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n = 50
			req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(stepsCall(1, n, tt.meta)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", tt.version)
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "steps")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, tt.wantType) {
				body, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d, Content-Type %q, body %s; want 200 and %s", resp.StatusCode, ct, body, tt.wantType)
			}
			var got []message
			for _, data := range readMessages(t, resp.Body, tt.wantType == "text/event-stream") {
				var m message
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatalf("%s: %v", data, err)
				}
				got = append(got, m)
			}
			checkProgress(t, got, tt.token, n, false)
		})
	}
}

// readMessages returns the JSON-RPC messages of a response body: the data
// of each SSE event, or the body itself.
func readMessages(t *testing.T, body io.Reader, sse bool) []string {
	t.Helper()
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if !sse {
		return []string{string(data)}
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestProgressServertest checks what tool packages see through servertest:
// the notifications of a call, the last one for all its steps.
func TestProgressServertest(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version "+version, func(t *testing.T) {
			c := servertest.Start(t, newProgressServer(t), servertest.Options{ProtocolVersion: version})
			res, progress := c.CallProgress("steps", map[string]any{"n": 20})
			if res.IsError || len(progress) == 0 {
				t.Fatalf("result %s, progress %v", res.Text, progress)
			}
			if last := progress[len(progress)-1]; last != (servertest.Progress{Progress: 20, Total: 20, Message: "step 20"}) {
				t.Errorf("last notification %+v; want step 20 of 20", last)
			}
			if _, progress := c.CallProgress("steps", map[string]any{"n": 1}); len(progress) != 1 {
				t.Errorf("second call: %d notifications, want its own 1", len(progress))
			}
		})
	}
}
