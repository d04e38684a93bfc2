package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/client"
)

// These tests run the client over Streamable HTTP against go-sdk's server
// handler in process, stateless (both eras) and stateful (legacy sessions),
// answering with JSON and with SSE.

// recorder keeps the method, the headers and the JSON-RPC method of every
// request that reaches the handler.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method string // HTTP method
	rpc    string // JSON-RPC method; "" for a response or no body
	header http.Header
}

func (rec *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &m)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{r.Method, m.Method, r.Header.Clone()})
		rec.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (rec *recorder) find(rpc string) []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []recorded
	for _, r := range rec.reqs {
		if r.rpc == rpc {
			out = append(out, r)
		}
	}
	return out
}

func (rec *recorder) deletes() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, r := range rec.reqs {
		if r.method == http.MethodDelete {
			n++
		}
	}
	return n
}

type echoArgs struct {
	Msg string `json:"msg"`
}

// goSDKHTTP serves go-sdk's handler with an echo tool, a tool that asks the
// client for its roots, a tool that sends a progress notification, and one
// that blocks until its request is cancelled (cancelled is closed then).
func goSDKHTTP(t *testing.T, opts *mcp.StreamableHTTPOptions) (url string, rec *recorder, cancelled chan struct{}) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-http", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Msg}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		//lint:ignore SA1019 legacy servers still ask for roots; the client must answer
		r, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "roots: " + string(rune('0'+len(r.Roots)))}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "p", Progress: 1})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	cancelled = make(chan struct{})
	release := make(chan struct{}) // ends slow calls the server was never told to cancel
	var once sync.Once
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case <-ctx.Done():
			once.Do(func() { close(cancelled) })
			return nil, nil, ctx.Err()
		case <-release:
			return nil, nil, errors.New("released at the end of the test")
		}
	})
	rec = &recorder{}
	srv := httptest.NewServer(rec.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for handlers
	return srv.URL, rec, cancelled
}

// goroutineCheck returns a function that checks that the goroutines are
// back to the count when it was made: for tests that run a server process
// of their own, which leakCheck would count as a leaked child.
func goroutineCheck(t *testing.T) func() {
	t.Helper()
	base := runtime.NumGoroutine()
	return func() {
		t.Helper()
		var n int
		for range 200 {
			if n = runtime.NumGoroutine(); n <= base {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d after close, %d before\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

func dial(t *testing.T, url string, opts client.Options) (*client.Conn, func()) {
	t.Helper()
	leaked := leakCheck(t)
	ep := client.Endpoint{URL: url, Header: http.Header{"Authorization": {"Bearer secret-token"}}}
	c, err := client.Dial(context.Background(), ep, opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return c, func() {
		t.Helper()
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		select {
		case <-c.Done():
		default:
			t.Error("Done is open after Close")
		}
		leaked(c.PID())
	}
}

func TestHTTPGoSDK(t *testing.T) {
	tests := []struct {
		name      string
		stateless bool
		json      bool
		era       client.Era
		version   string
	}{
		{"stateless json", true, true, client.EraAuto, client.ModernVersion},
		{"stateless sse", true, false, client.EraAuto, client.ModernVersion},
		{"stateless json legacy", true, true, client.EraLegacy, client.LegacyVersion},
		{"stateful json", false, true, client.EraAuto, client.LegacyVersion},
		{"stateful sse", false, false, client.EraAuto, client.LegacyVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, rec, _ := goSDKHTTP(t, &mcp.StreamableHTTPOptions{Stateless: tt.stateless, JSONResponse: tt.json})
			c, done := dial(t, url, client.Options{Era: tt.era})
			ctx := context.Background()
			if s := c.Server(); s.ProtocolVersion != tt.version || s.Implementation.Name != "gosdk-http" {
				t.Errorf("Server() = %+v; want %s from gosdk-http", s, tt.version)
			}
			tools, err := c.Tools(ctx)
			if err != nil || !strings.Contains(toolNames(tools), "echo") {
				t.Fatalf("Tools() = %s, %v", toolNames(tools), err)
			}
			res, err := c.Call(ctx, "echo", map[string]string{"msg": "hi"})
			if err != nil || res.Text() != "hi" {
				t.Fatalf("echo = %+v, %v", res, err)
			}
			_, err = c.Call(ctx, "no_such_tool", nil)
			if ce := asCallError(t, err); ce.Outcome != client.RPCError || ce.RPC.Code != -32602 {
				t.Fatalf("unknown tool = %v; want a -32602 JSON-RPC error", err)
			}
			if res, err := c.Call(ctx, "progress", nil); err != nil || res.Text() != "done" {
				t.Fatalf("progress = %+v, %v", res, err)
			}
			if !tt.json && c.Stats().Notifications == 0 {
				t.Errorf("Stats() = %+v; want the progress notification counted", c.Stats())
			}
			if !tt.stateless && !tt.json {
				// The server asks for the roots on the call's stream; the answer is POSTed.
				res, err := c.Call(ctx, "roots", nil)
				if err != nil || res.Text() != "roots: 0" || c.Stats().ServerRequests != 1 {
					t.Fatalf("roots = %+v, %v, %+v; want the roots/list request answered", res, err, c.Stats())
				}
			}
			calls := rec.find("tools/call")
			last := calls[0].header
			if got := last.Get("Authorization"); got != "Bearer secret-token" {
				t.Errorf("Authorization = %q; want the endpoint's header on every request", got)
			}
			if got := last.Get("MCP-Protocol-Version"); got != tt.version {
				t.Errorf("MCP-Protocol-Version = %q, want %s", got, tt.version)
			}
			if tt.version == client.ModernVersion {
				if m, n := last.Get("Mcp-Method"), last.Get("Mcp-Name"); m != "tools/call" || n != "echo" {
					t.Errorf("Mcp-Method, Mcp-Name = %q, %q; want tools/call, echo", m, n)
				}
			}
			session := last.Get("Mcp-Session-Id")
			if tt.stateless != (session == "") {
				t.Errorf("Mcp-Session-Id = %q on a stateless=%v server", session, tt.stateless)
			}
			if n := len(rec.find("notifications/initialized")); (tt.version == client.LegacyVersion) != (n == 1) {
				t.Errorf("%d notifications/initialized sent", n)
			}
			done()
			if want := map[bool]int{true: 0, false: 1}[tt.stateless]; rec.deletes() != want {
				t.Errorf("%d DELETEs; want %d", rec.deletes(), want)
			}
		})
	}
}

// TestHTTPSessionGone ends a legacy session under the client: the next
// request says the session is gone, and the connection is lost.
func TestHTTPSessionGone(t *testing.T) {
	url, rec, _ := goSDKHTTP(t, &mcp.StreamableHTTPOptions{JSONResponse: true})
	c, done := dial(t, url, client.Options{})
	defer done()
	ctx := context.Background()
	if _, err := c.Call(ctx, "echo", map[string]string{"msg": "hi"}); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", rec.find("tools/call")[0].header.Get("Mcp-Session-Id"))
	other := &http.Client{Transport: &http.Transport{}}
	resp, err := other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	other.CloseIdleConnections()
	_, err = c.Call(ctx, "echo", map[string]string{"msg": "hi"})
	ce := asCallError(t, err)
	if ce.Outcome != client.ConnectionLost || !errors.Is(err, client.ErrSessionGone) || !strings.Contains(err.Error(), "session is gone") {
		t.Fatalf("Call after the session ended = %v; want connection_lost, session gone", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done is open after the session ended")
	}
	if _, err := c.Call(ctx, "echo", nil); client.OutcomeOf(err) != client.NotSent {
		t.Errorf("Call on a lost connection = %v; want not_sent", err)
	}
}

// TestHTTPCallTimeout times out a call the server never answers. In the
// legacy era the client POSTs notifications/cancelled; in the modern era,
// aborting the POST is the cancellation and the server's handler sees it.
func TestHTTPCallTimeout(t *testing.T) {
	for _, tt := range []struct {
		name      string
		opts      *mcp.StreamableHTTPOptions
		era       client.Era
		notifying bool
	}{
		{"legacy session", &mcp.StreamableHTTPOptions{}, client.EraAuto, true},
		{"modern", &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}, client.EraAuto, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url, rec, cancelled := goSDKHTTP(t, tt.opts)
			c, done := dial(t, url, client.Options{Era: tt.era, Timeouts: client.Timeouts{Call: 50 * time.Millisecond}})
			defer done()
			_, err := c.Call(context.Background(), "slow", nil)
			if ce := asCallError(t, err); ce.Outcome != client.TimedOut {
				t.Fatalf("slow = %v; want timed_out", err)
			}
			// The notification, if any, was POSTed before Call returned.
			if n := len(rec.find("notifications/cancelled")); tt.notifying != (n == 1) {
				t.Fatalf("%d notifications/cancelled POSTed; want notifying=%v", n, tt.notifying)
			}
			<-cancelled // the server's handler saw its request cancelled
			// The connection is still usable. The echo shares the short
			// call timeout, which a loaded machine can exceed: only
			// another timeout is a reason to try again.
			for attempt := 1; ; attempt++ {
				res, err := c.Call(context.Background(), "echo", map[string]string{"msg": "after"})
				if err == nil && res.Text() == "after" {
					break
				}
				var ce *client.CallError
				if attempt == 5 || !errors.As(err, &ce) || ce.Outcome != client.TimedOut {
					t.Fatalf("echo after a timeout (attempt %d) = %+v, %v", attempt, res, err)
				}
				t.Logf("echo after a timeout timed out too (attempt %d): %v", attempt, err)
			}
		})
	}
}
