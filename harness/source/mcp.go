package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/repo-mcp/repo-mcp/client"
)

// MCP is the source of one MCP server, over stdio or Streamable HTTP. It
// starts the server (or connects to it) on first use and again when the
// connection was lost; after a restart it refuses to call a tool whose
// definition changed.
type MCP struct {
	name string
	cmd  client.Command
	ep   *client.Endpoint // set for a server over HTTP
	opts client.Options

	mu     sync.Mutex
	conn   *client.Conn
	known  map[string]json.RawMessage // tool name -> definition at the last Discover
	closed bool
}

// NewMCP returns the source "mcp.<name>" for the server cmd starts.
func NewMCP(name string, cmd client.Command, opts client.Options) *MCP {
	return &MCP{name: name, cmd: cmd, opts: opts}
}

// NewMCPHTTP returns the source "mcp.<name>" for the Streamable HTTP server
// at ep.
func NewMCPHTTP(name string, ep client.Endpoint, opts client.Options) *MCP {
	return &MCP{name: name, ep: &ep, opts: opts}
}

// ID returns "mcp.<name>".
func (m *MCP) ID() string { return "mcp." + m.name }

// Conn returns the live connection, or nil.
func (m *MCP) Conn() *client.Conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conn
}

func (m *MCP) connect(ctx context.Context) (*client.Conn, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, fmt.Errorf("%s: closed", m.ID())
	}
	if m.conn != nil && m.conn.Lost() == nil {
		return m.conn, false, nil
	}
	if m.conn != nil {
		m.conn.Close()
		m.conn = nil
	}
	var c *client.Conn
	var err error
	if m.ep != nil {
		c, err = client.Dial(ctx, *m.ep, m.opts)
	} else {
		c, err = client.Start(ctx, m.cmd, m.opts)
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: starting the server: %w", m.ID(), err)
	}
	m.conn = c
	return c, true, nil
}

// Discover lists the server's tools.
func (m *MCP) Discover(ctx context.Context) ([]Descriptor, error) {
	c, _, err := m.connect(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := c.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: tools/list: %w", m.ID(), err)
	}
	out := make([]Descriptor, 0, len(tools))
	known := make(map[string]json.RawMessage, len(tools))
	for _, t := range tools {
		d := Descriptor{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
		if len(t.Annotations) > 0 && string(t.Annotations) != "null" {
			var a Annotations
			if err := json.Unmarshal(t.Annotations, &a); err == nil {
				d.Annotations = &a
			}
		}
		out = append(out, d)
		known[t.Name] = t.Raw
	}
	m.mu.Lock()
	m.known = known
	m.mu.Unlock()
	return out, nil
}

// Call calls tool. When the server had to be started again, the tool's
// definition is listed first and must be the one Discover saw.
func (m *MCP) Call(ctx context.Context, tool string, args json.RawMessage) (*Result, error) {
	c, fresh, err := m.connect(ctx)
	if err != nil {
		return nil, &CallError{Outcome: client.NotSent, Message: err.Error(), Err: err}
	}
	if fresh {
		if err := m.sameDefinition(ctx, c, tool); err != nil {
			return nil, &CallError{Outcome: client.NotSent, Message: err.Error(), Err: err}
		}
	}
	var meta map[string]any
	if id := RequestID(ctx); id != "" {
		meta = map[string]any{MetaRequestID: id}
	}
	res, err := c.CallMeta(ctx, tool, args, meta)
	if err != nil {
		return nil, callError(err)
	}
	out := &Result{IsError: res.IsError, Raw: res.Raw}
	for _, b := range res.Content {
		out.Content = append(out.Content, Content{Type: b.Type, Text: b.Text, Raw: b.Raw})
	}
	return out, nil
}

func (m *MCP) sameDefinition(ctx context.Context, c *client.Conn, tool string) error {
	m.mu.Lock()
	want, ok := m.known[tool]
	m.mu.Unlock()
	if !ok {
		return nil // never discovered through this source: the caller checked it
	}
	tools, err := c.Tools(ctx)
	if err != nil {
		return fmt.Errorf("restarted server: tools/list: %w", err)
	}
	for _, t := range tools {
		if t.Name == tool {
			if !bytes.Equal(t.Raw, want) {
				return fmt.Errorf("restarted server changed the definition of %s; it needs approval again", tool)
			}
			return nil
		}
	}
	return fmt.Errorf("restarted server no longer offers %s", tool)
}

func callError(err error) *CallError {
	var ce *client.CallError
	if !errors.As(err, &ce) {
		return &CallError{Outcome: client.NotSent, Message: err.Error(), Err: err}
	}
	return &CallError{Outcome: ce.Outcome, Message: err.Error(), Head: ce.Head, Size: ce.Size, Err: err}
}

// Close stops the server. Calls in flight end ConnectionLost; later calls
// are not sent.
func (m *MCP) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.conn == nil {
		return nil
	}
	err := m.conn.Close()
	m.conn = nil
	return err
}
