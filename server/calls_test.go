package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

// syncBuffer is a bytes.Buffer safe for the server's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startTest serves the test tools and returns a connected client. Logs
// and audit lines go to the test log unless opts sets them.
func startTest(t *testing.T, opts server.Options, copts ...servertest.Options) *servertest.Client {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(t.Output(), nil))
	}
	if opts.Audit == nil {
		opts.Audit = t.Output()
	}
	return servertest.Start(t, newTestServer(opts), copts...)
}

func TestValidationReportsEveryProblem(t *testing.T) {
	c := startTest(t, server.Options{})
	tests := []struct {
		name string
		args string
		want []server.Violation
	}{
		{"missing required", `{}`, []server.Violation{{Pointer: "", Message: "missing property 'text'"}}},
		{"several at once", `{"text": 7, "count": 9, "tags": ["a","b","c","d"], "opts": {"upper": "yes", "sep": "*"}, "extra": 1}`,
			[]server.Violation{
				{Pointer: "", Message: "additional properties 'extra' not allowed"},
				{Pointer: "/count", Message: "maximum: got 9, want 5"},
				{Pointer: "/opts/sep", Message: "value must be one of '-', '+'"},
				{Pointer: "/opts/upper", Message: "got string, want boolean"},
				{Pointer: "/tags", Message: "maxItems: got 4, want 3"},
				{Pointer: "/text", Message: "got number, want string"},
			}},
		{"case variant key", `{"Text": "hi"}`, []server.Violation{
			{Pointer: "", Message: "missing property 'text'"},
			{Pointer: "", Message: "additional properties 'Text' not allowed"},
			{Pointer: "/Text", Message: `unknown key "Text": keys are case-sensitive; did you mean "text"?`},
		}},
		{"nested case variant", `{"text": "hi", "opts": {"Upper": true}}`, []server.Violation{
			{Pointer: "/opts", Message: "missing property 'upper'"},
			{Pointer: "/opts", Message: "additional properties 'Upper' not allowed"},
			{Pointer: "/opts/Upper", Message: `unknown key "Upper": keys are case-sensitive; did you mean "upper"?`},
		}},
		{"duplicate key", `{"text": "a", "text": "b"}`, []server.Violation{{Pointer: "/text", Message: `duplicate key "text"`}}},
		{"request_id with a space", `{"text": "a", "request_id": "a b"}`, []server.Violation{{Pointer: "/request_id", Message: "'a b' does not match pattern '^[!-~]+$'"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := c.Call("echo", json.RawMessage(tt.args))
			if !res.IsError || res.ErrorClass() != "invalid_input" {
				t.Fatalf("got %+v, want an invalid_input error", res)
			}
			if !strings.HasPrefix(res.Text, "invalid_input: ") {
				t.Errorf("text %q does not start with the class", res.Text)
			}
			details, _ := json.Marshal(res.Meta[server.MetaError].(map[string]any)["details"])
			var got []server.Violation
			if err := json.Unmarshal(details, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			for _, v := range tt.want {
				if !strings.Contains(res.Text, v.Message) {
					t.Errorf("text does not mention %q:\n%s", v.Message, res.Text)
				}
			}
		})
	}
}

func TestCallSucceeds(t *testing.T) {
	c := startTest(t, server.Options{})
	res := c.Call("echo", map[string]any{"text": "hi", "count": 2, "opts": map[string]any{"upper": true, "sep": "-"}, "request_id": "req-1"})
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Text)
	}
	want := `{"request_id":"req-1","text":"HI-HI"}`
	if string(res.Structured) != want {
		t.Errorf("structured = %s, want %s", res.Structured, want)
	}
	if res.Text != want {
		t.Errorf("text = %q, want the compact JSON %q", res.Text, want)
	}
	if res.Meta[server.MetaRequestID] != "req-1" {
		t.Errorf("meta request id = %v", res.Meta[server.MetaRequestID])
	}
}

func TestRequestIDGeneratedWhenAbsent(t *testing.T) {
	c := startTest(t, server.Options{})
	res := c.Call("echo", map[string]any{"text": "hi"})
	var out struct {
		RequestID string `json:"request_id"`
	}
	json.Unmarshal(res.Structured, &out)
	if !regexp.MustCompile(`^r-[0-9a-f]{16}$`).MatchString(out.RequestID) || res.Meta[server.MetaRequestID] != out.RequestID {
		t.Errorf("request id %q (meta %v): want a generated one, echoed in both", out.RequestID, res.Meta[server.MetaRequestID])
	}
}

func TestErrorClasses(t *testing.T) {
	var logs syncBuffer
	c := startTest(t, server.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	for _, class := range []string{"invalid_input", "permission_denied", "not_found", "precondition_failed"} {
		t.Run(class, func(t *testing.T) {
			res := c.Call("fail", map[string]any{"class": class, "message": "it went wrong"})
			want := class + ": it went wrong\nhint: a hint"
			if !res.IsError || res.Text != want {
				t.Errorf("got error=%v %q, want %q", res.IsError, res.Text, want)
			}
			meta := res.Meta[server.MetaError].(map[string]any)
			if meta["class"] != class || meta["message"] != "it went wrong" || meta["hint"] != "a hint" || meta["retryable"] != false {
				t.Errorf("meta = %v", meta)
			}
		})
	}
	t.Run("transient", func(t *testing.T) {
		res := c.Call("fail", map[string]any{"class": "transient", "message": "busy"})
		meta := res.Meta[server.MetaError].(map[string]any)
		if meta["retryable"] != true || meta["retry_after_ms"] != 2000.0 || !strings.HasPrefix(res.Text, "transient: busy") {
			t.Errorf("got %q, meta %v", res.Text, meta)
		}
	})
	for _, kind := range []string{"plain", "panic"} {
		t.Run("internal "+kind, func(t *testing.T) {
			res := c.Call("fail", map[string]any{"class": kind})
			meta := res.Meta[server.MetaError].(map[string]any)
			trace, _ := meta["trace_id"].(string)
			if meta["class"] != "internal" || trace == "" || !strings.HasPrefix(res.Text, "internal: ") {
				t.Fatalf("got %q, meta %v", res.Text, meta)
			}
			if strings.Contains(res.Text, "/secret/host/path") {
				t.Errorf("the result leaks the internal error: %q", res.Text)
			}
			if !strings.Contains(logs.String(), trace) || !strings.Contains(logs.String(), "/secret/host/path") {
				t.Errorf("the log lacks the trace id and cause:\n%s", logs.String())
			}
		})
	}
	if !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic was logged without a stack")
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	c := startTest(t, server.Options{})
	_, err := c.CallErr("no_such_tool", map[string]any{})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("got %v, want a -32602 JSON-RPC error", err)
	}
}

func TestResultBound(t *testing.T) {
	c := startTest(t, server.Options{})
	res := c.Call("size", map[string]any{"bytes": 5000})
	if res.IsError || len(res.Text) > 1000 || !strings.Contains(res.Text, "[truncated by the server: ") || res.Meta[server.MetaTruncated] != true {
		t.Errorf("text of %d bytes, meta %v: want it cut to the bound with a visible note", len(res.Text), res.Meta)
	}
	res = c.Call("size", map[string]any{"bytes": 5000, "structured": true})
	if !res.IsError || res.ErrorClass() != "invalid_input" || !strings.Contains(res.Text, "ask for less") {
		t.Errorf("got %q: want invalid_input telling the caller to ask for less", res.Text)
	}
	res = c.Call("size", map[string]any{"bytes": 10})
	if res.IsError || res.Text != "xxxxxxxxxx" || res.Meta[server.MetaTruncated] != nil {
		t.Errorf("a small result was altered: %q %v", res.Text, res.Meta)
	}
}

func TestTimeoutIsTransient(t *testing.T) {
	c := startTest(t, server.Options{})
	res := c.Call("sleep", map[string]any{})
	if res.ErrorClass() != "transient" || !strings.Contains(res.Text, "time limit") {
		t.Errorf("got %q, want a transient time-limit error", res.Text)
	}
}

func TestAuthorizeHook(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	c := startTest(t, server.Options{
		Caller: "alice",
		Authorize: func(_ context.Context, req *server.Request) error {
			mu.Lock()
			seen = append(seen, req.Tool+":"+req.Action())
			mu.Unlock()
			// The hook reads the typed input, never the arguments by name.
			if in, ok := req.Input().(whoIn); !ok {
				t.Errorf("the hook got input %T, want whoIn", req.Input())
			} else if in.WorkspaceID == "forbidden" {
				return server.Errorf(server.PermissionDenied, "alice may not read workspace %q (rule: policy alice)", in.WorkspaceID)
			}
			return nil
		},
	})
	res := c.Call("who", map[string]any{"workspace_id": "ok"})
	var got struct{ Caller, Workspace, Protocol string }
	json.Unmarshal(res.Structured, &got)
	if got.Caller != "alice" || got.Workspace != "ok" || got.Protocol == "" {
		t.Errorf("who = %+v", got)
	}
	res = c.Call("who", map[string]any{"workspace_id": "forbidden"})
	if res.ErrorClass() != "permission_denied" {
		t.Errorf("got %q, want permission_denied", res.Text)
	}
	// Invalid arguments never reach the hook.
	c.Call("who", map[string]any{"workspace_id": 3})
	if len(seen) != 2 || seen[0] != "who:read" {
		t.Errorf("the hook saw %v, want two valid who:read calls", seen)
	}
}

func TestAuditLine(t *testing.T) {
	var audit syncBuffer
	c := startTest(t, server.Options{Audit: &audit, Caller: "bob"})
	c.Call("who", map[string]any{"workspace_id": "ws1", "request_id": "audit-1"})
	c.Call("fail", map[string]any{"class": "not_found", "message": "x\x1b[31m"})
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(audit.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit line is not JSON: %q", sc.Text())
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 {
		t.Fatalf("got %d audit lines, want 2:\n%s", len(lines), audit.String())
	}
	first := lines[0]
	for _, key := range []string{"time", "request_id", "rpc_id", "protocol_version", "caller", "tool", "workspace_id", "args_sha256", "duration_ms", "result_bytes", "outcome", "truncated"} {
		if _, ok := first[key]; !ok {
			t.Errorf("audit line lacks %s: %v", key, first)
		}
	}
	if first["request_id"] != "audit-1" || first["caller"] != "bob" || first["workspace_id"] != "ws1" || first["outcome"] != "ok" || first["rpc_id"] == "" {
		t.Errorf("audit line = %v", first)
	}
	if lines[1]["outcome"] != "not_found" {
		t.Errorf("outcome = %v, want not_found", lines[1]["outcome"])
	}
	if strings.Contains(audit.String(), "\x1b") || strings.Contains(audit.String(), "ws1\"") && strings.Contains(audit.String(), "arguments") {
		t.Errorf("audit holds raw control characters or arguments:\n%s", audit.String())
	}
}

func TestArgumentsDigestIsCanonical(t *testing.T) {
	var audit syncBuffer
	c := startTest(t, server.Options{Audit: &audit})
	c.Call("echo", json.RawMessage(`{"text":"a","count":2,"request_id":"one"}`))
	c.Call("echo", json.RawMessage(`{ "count": 2, "text": "a", "request_id": "two" }`))
	var digests []string
	for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		digests = append(digests, m["args_sha256"].(string))
	}
	if len(digests) != 2 || digests[0] != digests[1] || len(digests[0]) != 64 {
		t.Errorf("digests %v: want two equal SHA-256 digests", digests)
	}
}

func TestBothEras(t *testing.T) {
	for _, v := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run("version "+v, func(t *testing.T) {
			c := startTest(t, server.Options{}, servertest.Options{ProtocolVersion: v})
			want := v
			if v == "" {
				want = "2026-07-28"
			}
			if got := c.ProtocolVersion(); got != want {
				t.Errorf("negotiated %s, want %s", got, want)
			}
			res := c.Call("who", map[string]any{"workspace_id": "w"})
			var got struct{ Protocol string }
			json.Unmarshal(res.Structured, &got)
			if got.Protocol != want {
				t.Errorf("handler saw protocol %q, want %q", got.Protocol, want)
			}
		})
	}
}

// TestAuditResourceRead: a resources/read reaches the audit log as a tool
// call does, with its caller, URI and outcome, refused reads too.
func TestAuditResourceRead(t *testing.T) {
	var audit syncBuffer
	s := newTestServer(server.Options{Audit: &audit, Caller: "bob", Logger: slog.New(slog.DiscardHandler)})
	err := s.AddResourceTemplate(server.ResourceTemplate{
		URITemplate: "test://{name}", Name: "note",
		Read: func(_ context.Context, caller, uri string) (server.ResourceContents, error) {
			if uri != "test://open" {
				return server.ResourceContents{}, server.Errorf(server.PermissionDenied, "%s is not for %s", uri, caller)
			}
			return server.ResourceContents{Text: "hello"}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := servertest.Start(t, s)
	if res, err := c.ReadResource("test://open"); err != nil || res.Contents[0].Text != "hello" {
		t.Fatalf("ReadResource(open) = %v, %v", res, err)
	}
	if _, err := c.ReadResource("test://closed"); err == nil {
		t.Fatal("ReadResource(closed) succeeded")
	}
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line is not JSON: %q", line)
		}
		lines = append(lines, m)
	}
	want := []struct{ uri, outcome string }{{"test://open", "ok"}, {"test://closed", "permission_denied"}}
	if len(lines) != len(want) {
		t.Fatalf("got %d audit lines, want %d:\n%s", len(lines), len(want), audit.String())
	}
	for i, w := range want {
		l := lines[i]
		if l["msg"] != "resource read" || l["caller"] != "bob" || l["template"] != "note" || l["uri"] != w.uri || l["outcome"] != w.outcome || l["protocol_version"] == "" {
			t.Errorf("audit line %d = %v; want %s read by bob, %s", i, l, w.uri, w.outcome)
		}
	}
	if lines[0]["result_bytes"] != float64(len("hello")) {
		t.Errorf("result_bytes = %v, want 5", lines[0]["result_bytes"])
	}
}
