package searchtext

import (
	"context"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Register adds search_text, of family search, to s, reading through reg,
// unless s does not serve the family. The index stays open until s.Close.
// With opts.WarmAs, HEAD of each workspace is indexed before s is ready.
func Register(s *server.Server, reg *workspace.Registry, opts Options) error {
	if !s.Serves(string(toolkit.FamilySearch)) {
		return nil
	}
	sv, err := New(reg, opts)
	if err != nil {
		return err
	}
	if err := sv.register(s); err != nil {
		sv.Close()
		return err
	}
	s.OnClose(sv.Close)
	if opts.WarmAs != "" && reg != nil {
		s.Warm("text index", func(ctx context.Context) error {
			sv.Warm(ctx, opts.WarmAs, reg.IDs(opts.WarmAs)...)
			return nil
		})
	}
	return nil
}

// register adds search_text to s.
func (sv *Service) register(s *server.Server) error {
	return server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound},
		Name:   "search_text",
		Title:  "Search text",
		Description: "Search the files of a repository at a revision (default HEAD, or the working tree where allowed) for a " +
			"literal string or an RE2 regular expression, line by line as grep does, answered from an index. Case sensitive, " +
			"insensitive or smart; whole words; include/exclude globs and language filters. Output: matching lines with " +
			"1-based line and column and optional context, files with counts, or totals. Results in (path, line) order, paged " +
			"with a cursor; binary and oversized files are skipped and counted.",
		Effect:         server.ReadOnly,
		Family:         string(toolkit.FamilySearch),
		Action:         string(workspace.ActionSearch),
		MaxResultBytes: 4 << 20,
		Comments:       toolkit.Comments(goComments()),
	}, sv.search)
}
