package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
)

// fake is a hand-written Streamable HTTP server: it runs the handshake
// properly (modern, or legacy with a session) and answers every tools/call
// with call, which misbehaves as each test needs.
type fake struct {
	legacy bool
	call   func(w http.ResponseWriter, r *http.Request, id int64)

	mu        sync.Mutex
	posted    []map[string]any // every message POSTed, decoded
	headers   []http.Header    // their headers
	deleted   int
	refuseAll bool // answer everything 401
	refused   int
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.refuseAll {
		f.mu.Lock()
		f.refused++
		f.mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Bearer realm="fake"`)
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodDelete {
		f.mu.Lock()
		f.deleted++
		f.mu.Unlock()
		http.Error(w, "sessions end on their own", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	json.Unmarshal(body, &m)
	f.mu.Lock()
	f.posted = append(f.posted, m)
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	id, _ := m["id"].(float64)
	method, _ := m["method"].(string)
	reply := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, int64(id), result)
	}
	switch {
	case method == "server/discover" && f.legacy:
		http.Error(w, "Bad Request: no session", http.StatusBadRequest)
	case method == "server/discover":
		reply(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}}}`)
	case method == "initialize":
		w.Header().Set("Mcp-Session-Id", "sess-1")
		reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`)
	case m["id"] == nil || method == "": // a notification, or a response to our request
		w.WriteHeader(http.StatusAccepted)
	case method == "tools/list":
		reply(`{"tools":[]}`)
	case method == "tools/call":
		f.call(w, r, int64(id))
	default:
		http.Error(w, "unexpected", http.StatusNotFound)
	}
}

// find returns the messages POSTed with method (or, for "", responses).
func (f *fake) find(method string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, m := range f.posted {
		if got, _ := m["method"].(string); got == method {
			out = append(out, m)
		}
	}
	return out
}

func (f *fake) lastHeader() http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[len(f.headers)-1]
}

func serveFake(t *testing.T, f *fake) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

func TestHTTPMisbehaving(t *testing.T) {
	const text = `{"content":[{"type":"text","text":"ok"}]}`
	big := strings.Repeat("x", 4000)
	small := client.Options{Limits: client.Limits{FrameBytes: 1024, OversizedKeep: 100}}
	tests := []struct {
		name    string
		opts    client.Options
		call    func(w http.ResponseWriter, r *http.Request, id int64)
		outcome client.Outcome
		check   func(t *testing.T, err error, res *client.Result, s client.Stats)
	}{{
		name: "HTML 500 page",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "<html><body>Internal error</body></html>")
		},
		outcome: client.BadResult,
		check: func(t *testing.T, err error, _ *client.Result, _ client.Stats) {
			var he *client.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 500 || !strings.Contains(err.Error(), "500 Internal Server Error") ||
				!strings.Contains(string(asCallError(t, err).Head), "<html>") {
				t.Errorf("err = %v; want an HTTPError naming 500, the page's head kept", err)
			}
		},
	}, {
		name: "JSON-RPC error with a 400",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"bad arguments"}}`, id)
		},
		outcome: client.RPCError,
		check: func(t *testing.T, err error, _ *client.Result, _ client.Stats) {
			if ce := asCallError(t, err); ce.RPC.Code != -32602 {
				t.Errorf("err = %v; want -32602", err)
			}
		},
	}, {
		name: "JSON-RPC error without an id with a 403",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"origin refused"}}`)
		},
		outcome: client.RPCError,
	}, {
		name: "401 with a challenge",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://fake/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		},
		outcome: client.BadResult,
		check: func(t *testing.T, err error, _ *client.Result, _ client.Stats) {
			if !errors.Is(err, client.ErrCredentials) || !strings.Contains(err.Error(), "refused the credentials") || !strings.Contains(err.Error(), "resource_metadata=") {
				t.Errorf("err = %v; want the credentials refused, with the challenge", err)
			}
		},
	}, {
		name: "wrong Content-Type",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, id, text)
		},
		outcome: client.BadResult,
		check: func(t *testing.T, err error, _ *client.Result, _ client.Stats) {
			if !strings.Contains(err.Error(), "text/plain") {
				t.Errorf("err = %v; want the Content-Type named", err)
			}
		},
	}, {
		name:    "202 for a request",
		call:    func(w http.ResponseWriter, r *http.Request, id int64) { w.WriteHeader(http.StatusAccepted) },
		outcome: client.BadResult,
	}, {
		name: "SSE stream cut before the response",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			sse(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		},
		outcome: client.ConnectionLost,
		check: func(t *testing.T, err error, _ *client.Result, s client.Stats) {
			if s.Notifications != 1 || !strings.Contains(err.Error(), "before the response") {
				t.Errorf("err = %v, %+v; want the stream's end named, the notification counted", err, s)
			}
		},
	}, {
		name: "connection closed mid-body",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "200")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, `{"jsonrpc":"2.0",`)
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		},
		outcome: client.ConnectionLost,
	}, {
		name: "connection closed before any answer",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		},
		outcome: client.ConnectionLost,
	}, {
		name: "redirect that would turn the POST into a GET",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		},
		outcome: client.BadResult,
		check: func(t *testing.T, err error, _ *client.Result, _ client.Stats) {
			if !strings.Contains(err.Error(), "302 Found") {
				t.Errorf("err = %v; want the redirect named", err)
			}
		},
	}, {
		name: "oversized JSON body",
		opts: small,
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`, id, big)
		},
		outcome: client.Oversized,
		check: func(t *testing.T, err error, _ *client.Result, s client.Stats) {
			ce := asCallError(t, err)
			if len(ce.Head) != 100 || ce.Size < 4000 || s.Oversized != 1 {
				t.Errorf("Head %d bytes, Size %d, %+v; want 100 bytes kept of the whole size", len(ce.Head), ce.Size, s)
			}
		},
	}, {
		name: "oversized SSE event",
		opts: small,
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			sse(w, fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}}\n\n", id, big))
		},
		outcome: client.Oversized,
		check: func(t *testing.T, err error, _ *client.Result, _ client.Stats) {
			ce := asCallError(t, err)
			if !strings.HasPrefix(string(ce.Head), `{"jsonrpc"`) || len(ce.Head) != 100 || ce.Size < 4000 {
				t.Errorf("Head %q, Size %d; want the data's first 100 bytes", ce.Head, ce.Size)
			}
		},
	}, {
		name: "JSON answer with another id",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, id+100, text)
		},
		outcome: client.BadResult,
		check: func(t *testing.T, err error, _ *client.Result, s client.Stats) {
			if s.UnknownID != 1 {
				t.Errorf("Stats = %+v; want the other id counted", s)
			}
		},
	}, {
		name: "SSE: another id, comments, a ping, then the answer",
		call: func(w http.ResponseWriter, r *http.Request, id int64) {
			sse(w,
				"id: 0\ndata:\n\n", // a 2025-11-25 priming event: not dispatched
				": keep-alive\n\n",
				fmt.Sprintf("id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n\n", id+100),
				"data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n",
				"retry: 10\nevent: other\ndata: not JSON-RPC\n\n",
				// One message over two data lines.
				fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%d,\ndata: \"result\":%s}\n\n", id, text))
		},
		outcome: client.Answered,
		check: func(t *testing.T, err error, res *client.Result, s client.Stats) {
			if res.Text() != "ok" || s.UnknownID != 1 || s.ServerRequests != 1 || s.NonJSON != 0 {
				t.Errorf("Call = %+v, %+v; want ok, one other id, one server request", res, s)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{call: tt.call}
			c, done := dial(t, serveFake(t, f), tt.opts)
			defer done()
			res, err := c.Call(context.Background(), "tool", map[string]string{"a": "b"})
			if got := client.OutcomeOf(err); got != tt.outcome {
				t.Fatalf("Call = %+v, %v (%s); want %s", res, err, got, tt.outcome)
			}
			if tt.check != nil {
				tt.check(t, err, res, c.Stats())
			}
			if tt.name == "SSE: another id, comments, a ping, then the answer" {
				if rs := f.find(""); len(rs) != 1 || rs[0]["id"] != "srv-1" {
					t.Errorf("responses POSTed: %v; want the ping answered with its string id", rs)
				}
			}
		})
	}
}

// TestHTTPSlowServer times out a call on a server that never answers: the
// call ends TimedOut, the server sees its request aborted, and in the
// legacy era notifications/cancelled arrives.
func TestHTTPSlowServer(t *testing.T) {
	for _, legacy := range []bool{true, false} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			aborted := make(chan struct{})
			f := &fake{legacy: legacy, call: func(w http.ResponseWriter, r *http.Request, id int64) {
				<-r.Context().Done()
				close(aborted)
			}}
			c, done := dial(t, serveFake(t, f), client.Options{Timeouts: client.Timeouts{Call: 50 * time.Millisecond}})
			defer done()
			_, err := c.Call(context.Background(), "slow", nil)
			ce := asCallError(t, err)
			if ce.Outcome != client.TimedOut || !ce.Outcome.Unknown() {
				t.Fatalf("Call = %v; want timed_out", err)
			}
			<-aborted
			cancels := f.find("notifications/cancelled")
			if !legacy {
				if len(cancels) != 0 {
					t.Errorf("modern: %d notifications/cancelled; aborting the POST is the cancellation", len(cancels))
				}
				return
			}
			if len(cancels) != 1 || cancels[0]["params"].(map[string]any)["requestId"] != float64(ce.ID) {
				t.Fatalf("notifications/cancelled POSTed: %v; want one for id %d", cancels, ce.ID)
			}
			if h := f.lastHeader(); h.Get("Mcp-Session-Id") != "sess-1" || h.Get("MCP-Protocol-Version") != "2025-11-25" {
				t.Errorf("cancel headers = %v; want the session and version", h)
			}
		})
	}
}

func TestHTTPDial(t *testing.T) {
	t.Run("nothing listens", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		_, err = client.Dial(context.Background(), client.Endpoint{URL: "http://" + l.Addr().String() + "/mcp"}, client.Options{})
		if client.OutcomeOf(err) != client.NotSent || !strings.Contains(err.Error(), "no connection") {
			t.Fatalf("Dial = %v; want not_sent: no connection was made", err)
		}
	})
	t.Run("credentials refused", func(t *testing.T) {
		f := &fake{refuseAll: true}
		_, err := client.Dial(context.Background(), client.Endpoint{URL: serveFake(t, f)}, client.Options{})
		if !errors.Is(err, client.ErrCredentials) || !strings.Contains(err.Error(), `Bearer realm="fake"`) {
			t.Fatalf("Dial = %v; want the credentials refused, with the challenge", err)
		}
		if f.refused != 1 {
			t.Errorf("%d requests refused; want Dial to stop at the first (initialize would be refused too)", f.refused)
		}
	})
	t.Run("not an HTTP URL", func(t *testing.T) {
		if _, err := client.Dial(context.Background(), client.Endpoint{URL: "file:///tmp/x"}, client.Options{}); err == nil {
			t.Fatal("Dial accepted a file URL")
		}
	})
	t.Run("legacy session ends with DELETE, 405 tolerated", func(t *testing.T) {
		f := &fake{legacy: true, call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, id)
		}}
		c, done := dial(t, serveFake(t, f), client.Options{})
		if s := c.Server(); s.Modern || s.ProtocolVersion != client.LegacyVersion {
			t.Errorf("Server() = %+v; want legacy after a 400 to server/discover", s)
		}
		if _, err := c.Call(context.Background(), "x", nil); err != nil {
			t.Fatal(err)
		}
		done()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.deleted != 1 {
			t.Errorf("%d DELETEs; want the session ended", f.deleted)
		}
	})
	t.Run("Mcp-Name of a name that is not plain ASCII", func(t *testing.T) {
		f := &fake{call: func(w http.ResponseWriter, r *http.Request, id int64) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, id)
		}}
		c, done := dial(t, serveFake(t, f), client.Options{})
		defer done()
		for name, want := range map[string]string{"héllo": "=?base64?aMOpbGxv?=", "plain_name": "plain_name", " padded": "=?base64?IHBhZGRlZA==?=", "=?base64?x?=": "=?base64?PT9iYXNlNjQ/eD89?="} {
			if _, err := c.Call(context.Background(), name, nil); err != nil {
				t.Fatal(err)
			}
			if got := f.lastHeader().Get("Mcp-Name"); got != want {
				t.Errorf("Mcp-Name for %q = %q, want %q", name, got, want)
			}
		}
	})
}
