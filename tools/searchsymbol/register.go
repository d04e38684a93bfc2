package searchsymbol

import (
	"context"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Register adds search_symbol, of family search, to s, reading through
// reg, unless s does not serve the family. The index lives until s.Close.
// With opts.WarmAs, HEAD of each workspace is indexed before s is ready.
func Register(s *server.Server, reg *workspace.Registry, opts Options) error {
	if !s.Serves(string(toolkit.FamilySearch)) {
		return nil
	}
	sv := New(reg, opts)
	if err := sv.register(s); err != nil {
		return err
	}
	s.OnClose(sv.Close)
	if opts.WarmAs != "" && reg != nil {
		s.Warm("symbol index", func(ctx context.Context) error {
			sv.Warm(ctx, opts.WarmAs, reg.IDs(opts.WarmAs)...)
			return nil
		})
	}
	return nil
}

// register adds search_symbol to s.
func (sv *Service) register(s *server.Server) error {
	return server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound},
		Name:   "search_symbol",
		Title:  "Find Go declarations",
		Description: "Find where Go symbols are declared in a repository at a revision (default HEAD): packages, functions, " +
			"methods, types, fields, interface methods, constants and variables, with 1-based positions, signatures and the " +
			"first sentence of their docs. Queries: NewReader, bufio.NewReader, Reader.Read, (*Server).Serve, camel-case " +
			"initials (NR) or fuzzy (srvr). Ranked exact > prefix > initials > substring > fuzzy; paged with a cursor.",
		Effect:   server.ReadOnly,
		Family:   string(toolkit.FamilySearch),
		Action:   string(workspace.ActionSearch),
		Comments: toolkit.Comments(goComments()),
	}, sv.search)
}
