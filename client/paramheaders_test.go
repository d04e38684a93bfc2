package client_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
)

// headerServer is a 2026-07-28 server whose tools mark arguments with
// x-mcp-header. It refuses a tools/call whose Mcp-Param-* headers do not
// match the body with 400 and -32020, as the specification asks, and it
// records every POST: the MCP headers and the body.
type headerServer struct {
	mu       sync.Mutex
	log      strings.Builder
	listings int
	// greetMarked: from the second tools/list on, greet's "greeting" is
	// marked, as if the server was updated between two listings.
	greetMarked bool
}

func (s *headerServer) tools() []any {
	prop := func(typ, mark string) map[string]any {
		p := map[string]any{"type": typ}
		if mark != "" {
			p["x-mcp-header"] = mark
		}
		return p
	}
	greeting := prop("string", "")
	if s.greetMarked {
		greeting = prop("string", "Greeting")
	}
	tool := func(name string, props map[string]any) map[string]any {
		return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object", "properties": props}}
	}
	return []any{
		tool("execute_sql", map[string]any{"region": prop("string", "Region"), "query": prop("string", ""),
			"opts": map[string]any{"type": "object", "properties": map[string]any{"shard": prop("integer", "Shard"), "dry": prop("boolean", "Dry")}}}),
		tool("greet", map[string]any{"greeting": greeting}),
		tool("bad_number", map[string]any{"ratio": prop("number", "Ratio")}),
		tool("bad_items", map[string]any{"list": map[string]any{"type": "array", "items": prop("string", "Item")}}),
		tool("bad_duplicate", map[string]any{"a": prop("string", "Zone"), "b": prop("string", "zone")}),
	}
}

func (s *headerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	json.Unmarshal(body, &req)
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for k := range r.Header {
		if strings.HasPrefix(k, "Mcp-") {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&s.log, "> %s: %s\n", k, r.Header.Get(k))
	}
	fmt.Fprintf(&s.log, "> %s %s\n", req.Method, compactParams(body))
	status, answer := s.answer(r, req.Method, req.Params.Name, req.Params.Arguments)
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, answerKey(status): answer})
	fmt.Fprintf(&s.log, "< %d %s\n", status, out)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(out)
}

func answerKey(status int) string {
	if status == http.StatusOK {
		return "result"
	}
	return "error"
}

// compactParams is the body's params without the _meta every modern
// request carries (the wire transcripts elsewhere pin it).
func compactParams(body []byte) string {
	var msg struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	json.Unmarshal(body, &msg)
	delete(msg.Params, "_meta")
	out, _ := json.Marshal(msg.Params)
	return string(out)
}

func (s *headerServer) answer(r *http.Request, method, name string, args map[string]any) (int, any) {
	complete := map[string]any{"resultType": "complete"}
	switch method {
	case "server/discover":
		complete["supportedVersions"] = []string{client.ModernVersion}
		complete["capabilities"] = map[string]any{"tools": map[string]any{}}
		return http.StatusOK, complete
	case "tools/list":
		s.listings++
		s.greetMarked = s.listings > 1
		complete["tools"] = s.tools()
		return http.StatusOK, complete
	case "tools/call":
		want := map[string]string{}
		switch name {
		case "execute_sql":
			want["Region"] = fmt.Sprint(args["region"])
		case "greet":
			want["Greeting"] = fmt.Sprint(args["greeting"])
		}
		for h, v := range want {
			got := r.Header.Get("Mcp-Param-" + h)
			if enc, ok := strings.CutPrefix(got, "=?base64?"); ok {
				b, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
				got = string(b)
			}
			if got != v {
				return http.StatusBadRequest, map[string]any{"code": -32020,
					"message": fmt.Sprintf("header mismatch: Mcp-Param-%s is %q, the body has %q", h, got, v)}
			}
		}
		complete["content"] = []any{map[string]any{"type": "text", "text": "ok"}}
		return http.StatusOK, complete
	}
	return http.StatusNotFound, map[string]any{"code": -32601, "message": "method not found"}
}

// TestParamHeaders pins what the client sends to a 2026-07-28 server whose
// tools mark arguments with x-mcp-header: the tools with invalid marks
// are left out of Tools; each marked argument present in a call goes out
// as an Mcp-Param-* header (integers and booleans as text, a value that
// is not plain ASCII in base64, an absent one omitted); and a -32020
// refusal makes the client list the tools again and retry once, with the
// headers the new schema asks for.
func TestParamHeaders(t *testing.T) {
	s := &headerServer{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx := context.Background()
	c, err := client.Dial(ctx, client.Endpoint{URL: srv.URL}, client.Options{ClientInfo: client.Implementation{Name: "wire-test", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(tools), "execute_sql greet"; got != want {
		t.Errorf("Tools() = %s; want %s (the three with invalid marks left out)", got, want)
	}
	if got := c.Stats().RejectedTools; got != 3 {
		t.Errorf("Stats().RejectedTools = %d; want 3", got)
	}
	calls := []struct {
		tool string
		args any
	}{
		{"execute_sql", map[string]any{"region": "us-west1", "query": "SELECT 1", "opts": map[string]any{"shard": 7, "dry": true}}},
		{"execute_sql", map[string]any{"region": " padded ", "query": "SELECT 2"}},
		{"greet", json.RawMessage(`{"greeting":"Hello, 世界"}`)},
	}
	for _, call := range calls {
		res, err := c.Call(ctx, call.tool, call.args)
		if err != nil || res.Text() != "ok" {
			t.Fatalf("Call(%s) = %+v, %v", call.tool, res, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	compareGolden(t, "testdata/wire/param-headers.txtar",
		"A 2026-07-28 server over HTTP whose tools mark arguments with x-mcp-header.\n"+
			"Three tools break the marking rules and are never called. Marked arguments\n"+
			"travel as Mcp-Param-* headers. greet gains a mark after the first listing:\n"+
			"the -32020 refusal makes the client list again and retry once.",
		[]byte(s.log.String()))
}
