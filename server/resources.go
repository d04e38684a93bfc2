package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources are the parts of tool results a person can see whole: a tool
// output that implements [Linker] names them in resource_link content
// items, and a client reads them with resources/read. The server declares
// the resources capability once a template is added; resources/list
// enumerates nothing (a repository's files are not a list worth sending),
// resources/templates/list names the templates.

// ResourceTemplate is a family of resources served by URI.
type ResourceTemplate struct {
	// URITemplate is an RFC 6570 template of the URIs, such as
	// "repo://{workspace}/{commit}/{+path}".
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Read returns the resource at uri as caller may see it. An error of
	// class NotFound, PermissionDenied or InvalidInput is the client's
	// "resource not found": a denied path reads as an absent one, and the
	// message says which. Anything else is internal.
	Read func(ctx context.Context, caller, uri string) (ResourceContents, error)
}

// ResourceContents is what resources/read returns: text, or bytes.
type ResourceContents struct {
	MIMEType string
	Text     string
	Blob     []byte
}

// Link names a resource in a tool result (a resource_link content item).
type Link struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        int64
}

// Linker is implemented by tool outputs that name resources the person
// can see, such as the whole of a file a result cut at its byte budget.
// Each link becomes a resource_link content item after the text, for
// clients of protocol versions that define it (2025-06-18 and later).
type Linker interface {
	Links() []Link
}

// linkSince is the first protocol version with resource_link content.
const linkSince = "2025-06-18"

// AddResourceTemplate adds t. Add templates before serving.
func (s *Server) AddResourceTemplate(t ResourceTemplate) error {
	if t.URITemplate == "" || t.Name == "" || t.Read == nil {
		return fmt.Errorf("resource template %q: URITemplate, Name and Read are required", t.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mcp != nil {
		return fmt.Errorf("resource template %q: added after serving started", t.Name)
	}
	s.templates = append(s.templates, t)
	return nil
}

// addResources hands the templates to the engine.
func (s *Server) addResources(srv *mcp.Server) {
	for _, t := range s.templates {
		srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title,
			Description: t.Description, MIMEType: t.MIMEType}, s.readHandler(t))
	}
}

func (s *Server) readHandler(t ResourceTemplate) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		caller := s.opts.Caller
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			caller = req.Extra.TokenInfo.UserID // see BearerAuth
		}
		uri := req.Params.URI
		start := time.Now()
		c, err := t.Read(ctx, caller, uri)
		s.auditRead(ctx, req.ProtocolVersion(), caller, t.Name, uri, start, len(c.Text)+len(c.Blob), err)
		if err != nil {
			return nil, resourceError(req.ProtocolVersion(), uri, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}}}, nil
	}
}

// auditRead writes the audit line of a resources/read, as a tool call's:
// a resource is a file's content reaching a client, and the audit trail
// must hold every such read, refused ones too.
func (s *Server) auditRead(ctx context.Context, version, caller, template, uri string, start time.Time, size int, err error) {
	outcome := "ok"
	var e *Error
	switch {
	case ctx.Err() != nil:
		outcome = "cancelled"
	case errors.As(err, &e):
		outcome = string(e.Class)
	case err != nil:
		outcome = string(Internal)
	}
	s.auditLog.LogAttrs(ctx, slog.LevelInfo, "resource read",
		slog.String("protocol_version", version),
		slog.String("caller", caller),
		slog.String("template", template),
		slog.String("uri", uri),
		slog.Int64("duration_ms", time.Since(start).Milliseconds()),
		slog.Int("result_bytes", size),
		slog.String("outcome", outcome),
	)
}

// resourceError is the JSON-RPC error for a failed read: "resource not
// found" is -32002 up to 2025-11-25 and -32602 from 2026-07-28 on.
func resourceError(version, uri string, err error) error {
	var e *Error
	if !errors.As(err, &e) || (e.Class != NotFound && e.Class != PermissionDenied && e.Class != InvalidInput) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "reading resource " + uri + " failed"}
	}
	code := int64(-32002)
	if version >= ModernVersion {
		code = jsonrpc.CodeInvalidParams
	}
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf("resource not found: %s: %s", uri, errorText(e))}
}

// wireLinks appends res's links as resource_link content for a client of
// version.
func (res *Result) wireLinks(out *mcp.CallToolResult, version string) {
	if version < linkSince {
		return
	}
	for _, l := range res.Links {
		link := &mcp.ResourceLink{URI: l.URI, Name: l.Name, Title: l.Title, Description: l.Description, MIMEType: l.MIMEType}
		if l.Size > 0 {
			size := l.Size
			link.Size = &size
		}
		out.Content = append(out.Content, link)
	}
}
