package source

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
)

// A call's request_id joins the harness's audit record of it to the
// server's own audit line. The harness sends one with every call (in the
// arguments when the tool's schema has a request_id, and always in
// params._meta) and records the one the server's result names.

// MetaRequestID is the _meta key a request_id travels under, in a call's
// params and in a result (repo-mcp's key; other servers ignore it).
const MetaRequestID = "io.github.repo-mcp/request_id"

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request_id of the call made with it.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request_id ctx carries, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// ServerRequestID returns the request_id a result names in its _meta, or "".
// Only _meta is decoded: the rest of the result, which can be large, is
// only scanned past.
func ServerRequestID(raw json.RawMessage) string {
	var meta []byte
	for key, value := range jsonscan.Members(raw) {
		if key == "_meta" {
			meta = value // the last one, as a decoder would take it
		}
	}
	var r map[string]json.RawMessage
	if meta == nil || json.Unmarshal(meta, &r) != nil {
		return ""
	}
	var id string
	json.Unmarshal(r[MetaRequestID], &id)
	return id
}

// Origin says where an MCP source's tools come from.
type Origin struct {
	Command  []string // stdio: the program and its arguments
	URL      string   // HTTP: scheme, host and path (a query or user info may hold a secret)
	Name     string   // the server's name and version, as it gave them
	Version  string
	Protocol string // the protocol version in use; "" before the first connection
}

// Origin returns where the source's tools come from, with what the server
// said of itself on the live connection, if there is one.
func (m *MCP) Origin() Origin {
	var o Origin
	if m.ep != nil {
		if u, err := url.Parse(m.ep.URL); err == nil {
			o.URL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
		}
	} else {
		o.Command = append([]string{m.cmd.Path}, m.cmd.Args...)
	}
	if c := m.Conn(); c != nil {
		s := c.Server()
		o.Name, o.Version, o.Protocol = s.Implementation.Name, s.Implementation.Version, s.ProtocolVersion
	}
	return o
}
