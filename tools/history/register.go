package history

import (
	"context"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Options configure the history tools.
type Options struct {
	// HideEmails leaves authors' and committers' emails out of every
	// result, and out of what the author filter matches, for deployments
	// that must not hand them to a model.
	HideEmails bool
}

// Register adds history and diff, of family history, to s, reading
// through reg.
func Register(s *server.Server, reg *workspace.Registry, opts Options) error {
	comments := toolkit.Comments(goComments())
	if err := server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "history",
		Title:  "Log or blame",
		Description: "Who changed what, when and why, from a revision (default HEAD). Mode log lists commits newest first, " +
			"filtered by path (following a file's renames on request), time, author, message (RE2), content added or " +
			"removed (git log -S) or a changed line matching a regex (git log -G), merges; paged with a cursor. " +
			"Mode blame gives, for each run of lines of a file, the commit that last changed it and where to dig further.",
		Effect:         server.ReadOnly,
		Family:         string(toolkit.FamilyHistory),
		Action:         string(workspace.ActionRead),
		MaxResultBytes: historyResultBytes,
		Comments:       comments,
	}, func(ctx context.Context, req *server.Request, in HistoryIn) (HistoryOut, error) {
		return historyCall(ctx, reg, opts, req, in)
	}); err != nil {
		return err
	}
	return server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "diff",
		Title:  "Show a commit or compare revisions",
		Description: "What changed: one commit (metadata, full message, changes against its first parent), or between " +
			"any two revisions (base..head, or from their merge base with merge_base; head may be \"worktree\" where allowed). " +
			"Files with status, renames with similarity, binary files and line counts; detail patch adds unified diffs, " +
			"paged by file within a byte budget.",
		Effect:         server.ReadOnly,
		Family:         string(toolkit.FamilyHistory),
		Action:         string(workspace.ActionRead),
		MaxResultBytes: diffResultBytes,
		Comments:       comments,
	}, func(ctx context.Context, req *server.Request, in DiffIn) (DiffOut, error) {
		return diffCall(ctx, reg, opts, req, in)
	})
}
