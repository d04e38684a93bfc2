package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's AddTool re-encodes a tool's schemas to check them (JSON out,
// then decoded again), and over HTTP it re-encodes the input schema at
// every tools/call to look for x-mcp-header annotations. For a new
// process, the first was the largest piece of building the engine, an
// eighth of all it did before its first answer. Our schemas are checked
// at Register already, so go-sdk holds each tool with a stand-in schema,
// and tools/list answers with the real ones (fullSchemas): the listing a
// client sees is the same, byte for byte.

// wireTools returns a tool as go-sdk registers it and as tools/list shows
// it.
func (r *registered) wireTools() (registered, listed *mcp.Tool) {
	listed = r.wireTool()
	if r.input.hasHeaderAnnotation() {
		// go-sdk routes such arguments to HTTP headers: it needs the real
		// schema.
		return listed, listed
	}
	stand := *listed
	stand.InputSchema = map[string]any{"type": "object"}
	stand.OutputSchema = nil
	return &stand, listed
}

// hasHeaderAnnotation reports whether a schema has an x-mcp-header
// annotation at any depth.
func hasHeaderAnnotation(schema any) bool {
	switch v := schema.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "x-mcp-header" || hasHeaderAnnotation(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasHeaderAnnotation(e) {
				return true
			}
		}
	}
	return false
}

// fullSchemas puts each tool of a tools/list answer back with its real
// schemas: listed holds them by name.
func fullSchemas(listed map[string]*mcp.Tool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				// go-sdk makes the slice for each answer.
				for i, t := range list.Tools {
					if full := listed[t.Name]; full != nil {
						list.Tools[i] = full
					}
				}
			}
			return res, err
		}
	}
}
