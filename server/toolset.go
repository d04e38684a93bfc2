package server

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server offers each caller only what it may use: the families the
// operator serves ([Options.Families]), and among them the tools
// [Options.Visible] lets the caller see. A tool costs a host tokens for its
// schema whether or not it is ever called, and a tool a caller may never
// call only invites a model to try.

// visibleOnly filters tools/list by [Options.Visible], and answers a call
// to a tool hidden from its caller exactly as go-sdk answers a call to a
// tool that does not exist, so that the answer does not reveal it.
func (s *Server) visibleOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.opts.Visible == nil {
			return next(ctx, method, req)
		}
		caller := s.callerOf(req)
		switch method {
		case "tools/call":
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && !s.visible(caller, p.Name) {
				return nil, unknownTool(p.Name)
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !s.visible(caller, t.Name) })
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// visible reports whether the tool named name is offered to caller. A
// name that is not registered is left for go-sdk to refuse.
func (s *Server) visible(caller, name string) bool {
	s.mu.Lock()
	r := s.tools[name]
	s.mu.Unlock()
	return r == nil || s.opts.Visible(caller, r.def)
}

// callerOf is who a request is from: the identity its bearer token
// names (see [BearerAuth]), else [Options.Caller].
func (s *Server) callerOf(req mcp.Request) string {
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo.UserID
	}
	return s.opts.Caller
}

// unknownTool is go-sdk's answer to a call of a tool it does not have.
func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

// Serves reports whether the server serves tools of family (see
// [Options.Families]). A tool package whose tools hold resources (an
// index, say) asks before it opens them.
func (s *Server) Serves(family string) bool {
	return s.opts.Families == nil || family == "" || slices.Contains(s.opts.Families, family)
}
