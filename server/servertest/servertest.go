// Package servertest runs a [server.Server] in the test process and calls
// its tools through the real protocol path: the frame guard, go-sdk's
// engine, the middleware chain and a go-sdk client, over in-memory pipes.
// Tool packages test themselves with it without importing go-sdk.
//
//	s := server.New(server.Info{Name: "t"}, server.Options{})
//	mytool.Register(s)
//	c := servertest.Start(t, s)
//	res := c.Call("my_tool", map[string]any{"path": "a.txt"})
//	if res.IsError { t.Fatal(res.Text) }
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/server"
)

// Client is a connected MCP client.
type Client struct {
	t        testing.TB
	session  *mcp.ClientSession
	progress *progressLog
}

// Progress is one notifications/progress a call received.
type Progress struct {
	Progress, Total float64
	Message         string
}

// progressLog keeps the notifications of calls made with CallProgress,
// by progress token.
type progressLog struct {
	mu    sync.Mutex
	next  int
	calls map[string][]Progress
}

func (l *progressLog) token() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	return fmt.Sprintf("servertest-%d", l.next)
}

// tap returns a reader of r that records the progress notifications it
// reads. The client's own handler runs after the response may have been
// delivered; a notification read here was read before the response that
// follows it, so a call finds all of its own when it returns.
func (l *progressLog) tap(r io.ReadCloser) io.ReadCloser {
	return &progressTap{r: r, log: l}
}

type progressTap struct {
	r       io.ReadCloser
	log     *progressLog
	partial []byte
}

func (t *progressTap) Close() error { return t.r.Close() }

func (t *progressTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.partial = append(t.partial, p[:n]...)
	for {
		line, rest, ok := bytes.Cut(t.partial, []byte("\n"))
		if !ok {
			break
		}
		t.log.record(line)
		t.partial = rest
	}
	return n, err
}

func (l *progressLog) record(line []byte) {
	if !bytes.Contains(line, []byte(`"notifications/progress"`)) {
		return
	}
	var m struct {
		Method string                         `json:"method"`
		Params mcp.ProgressNotificationParams `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "notifications/progress" {
		return
	}
	token, _ := m.Params.ProgressToken.(string)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls[token] = append(l.calls[token], Progress{m.Params.Progress, m.Params.Total, m.Params.Message})
}

func (l *progressLog) take(token string) []Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.calls[token]
	delete(l.calls, token)
	return p
}

// Options adjust [Start].
type Options struct {
	// ProtocolVersion pins the client's protocol version; empty means the
	// newest (2026-07-28, with fallback to the legacy handshake).
	ProtocolVersion string
	// Answer, when set, makes the client able to ask the person behind it
	// (the elicitation capability) and answers each question: action is
	// "accept", "decline" or "cancel".
	Answer func(message string) (action string, content map[string]any)
}

// Start serves s on in-memory pipes and connects a client. Everything is
// shut down when the test ends.
func Start(t testing.TB, s *server.Server, opts ...Options) *Client {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, serverIn, serverOut) }()

	progress := &progressLog{calls: make(map[string][]Progress)}
	copts := &mcp.ClientOptions{}
	if o.Answer != nil {
		copts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			action, content := o.Answer(req.Params.Message)
			return &mcp.ElicitResult{Action: action, Content: content}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "servertest", Version: "0"}, copts)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: progress.tap(clientIn), Writer: clientOut},
		&mcp.ClientSessionOptions{ProtocolVersion: o.ProtocolVersion})
	if err != nil {
		cancel()
		t.Fatalf("servertest: connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		clientOut.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("servertest: Serve: %v", err)
		}
	})
	return &Client{t: t, session: cs, progress: progress}
}

// ProtocolVersion is the version the session negotiated.
func (c *Client) ProtocolVersion() string { return c.session.InitializeResult().ProtocolVersion }

// ReadResource sends resources/read for uri.
func (c *Client) ReadResource(uri string) (*mcp.ReadResourceResult, error) {
	return c.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
}

// Result is a tool call's result, simplified.
type Result struct {
	IsError bool
	// Text is the text of the first content item.
	Text string
	// Structured is structuredContent as JSON; nil when absent.
	Structured json.RawMessage
	// Meta is the result's _meta.
	Meta map[string]any
}

// ErrorClass is the class under the result's error _meta, or "".
func (r *Result) ErrorClass() string {
	m, _ := r.Meta[server.MetaError].(map[string]any)
	c, _ := m["class"].(string)
	return c
}

// Call calls a tool and fails the test on a protocol error (not on a
// tool error: those are results).
func (c *Client) Call(name string, args any) *Result {
	c.t.Helper()
	res, err := c.CallErr(name, args)
	if err != nil {
		c.t.Fatalf("servertest: call %s: %v", name, err)
	}
	return res
}

// CallProgress calls a tool with a progress token, like Call, and returns
// the progress notifications that arrived before its result too.
func (c *Client) CallProgress(name string, args any) (*Result, []Progress) {
	c.t.Helper()
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	token := c.progress.token()
	params.SetProgressToken(token)
	res, err := c.call(params)
	if err != nil {
		c.t.Fatalf("servertest: call %s: %v", name, err)
	}
	return res, c.progress.take(token)
}

// CallErr calls a tool and returns protocol errors.
func (c *Client) CallErr(name string, args any) (*Result, error) {
	return c.call(&mcp.CallToolParams{Name: name, Arguments: args})
}

func (c *Client) call(params *mcp.CallToolParams) (*Result, error) {
	res, err := c.session.CallTool(context.Background(), params)
	if err != nil {
		return nil, err
	}
	out := &Result{IsError: res.IsError, Meta: res.Meta}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			out.Text = tc.Text
		}
	}
	if res.StructuredContent != nil {
		if out.Structured, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Tool is a listed tool, as the client sees it.
type Tool = mcp.Tool

// Tools lists the server's tools.
func (c *Client) Tools() []*Tool {
	c.t.Helper()
	res, err := c.session.ListTools(context.Background(), nil)
	if err != nil {
		c.t.Fatalf("servertest: list tools: %v", err)
	}
	return res.Tools
}

// ToolNames lists the names of the tools the server offers this client,
// in the order it sent them, and fails the test on a protocol error.
func (c *Client) ToolNames() []string {
	c.t.Helper()
	res, err := c.session.ListTools(context.Background(), nil)
	if err != nil {
		c.t.Fatalf("servertest: tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}
