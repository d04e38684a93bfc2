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
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/server"
)

// Client is a connected MCP client.
type Client struct {
	t       testing.TB
	session *mcp.ClientSession
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

	var copts *mcp.ClientOptions
	if o.Answer != nil {
		copts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			action, content := o.Answer(req.Params.Message)
			return &mcp.ElicitResult{Action: action, Content: content}, nil
		}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "servertest", Version: "0"}, copts)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut},
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
	return &Client{t: t, session: cs}
}

// ProtocolVersion is the version the session negotiated.
func (c *Client) ProtocolVersion() string { return c.session.InitializeResult().ProtocolVersion }

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

// CallErr calls a tool and returns protocol errors.
func (c *Client) CallErr(name string, args any) (*Result, error) {
	res, err := c.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
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
