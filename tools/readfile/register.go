package readfile

import (
	"context"
	"slices"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Options configure read_file and list_files. It has none yet: the
// parameter keeps the Register of every tool family in one shape (see
// [toolkit.Family]).
type Options struct{}

// Register adds read_file and list_files, of family read, to s, reading
// through reg.
func Register(s *server.Server, reg *workspace.Registry, _ Options) error {
	comments := toolkit.Comments(goComments())
	lines := newLineIndexes(keptLineIndexes)
	if err := server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "read_file",
		Title:  "Read a file",
		Description: "Read a text file of a repository at a revision (default HEAD), whole or by 1-based inclusive line range, " +
			"within a byte budget. The result names the commit and blob it read and, when cut, where to continue. " +
			"Binary files are refused unless encoding is base64.",
		Effect:         server.ReadOnly,
		Family:         string(toolkit.FamilyRead),
		Action:         string(workspace.ActionRead),
		MaxResultBytes: maxResultBytes,
		Comments:       comments,
	}, func(ctx context.Context, req *server.Request, in ReadFileIn) (ReadFileOut, error) {
		out, err := readFile(ctx, reg, lines, req, in)
		out.workspace, out.maxResource = in.WorkspaceID, reg.Options().MaxReadBytes
		return out, err
	}); err != nil {
		return err
	}
	// The files read_file links are served only where read_file is.
	if slices.Contains(s.ToolNames(), "read_file") {
		if err := s.AddResourceTemplate(fileTemplate(reg)); err != nil {
			return err
		}
	}
	return server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "list_files",
		Title:  "List files",
		Description: "List the entries of a directory of a repository at a revision (default HEAD): path, type (file, dir, " +
			"symlink, submodule) and mode, and sizes when asked. Recursive on request, filtered by a glob such as **/*.go, " +
			"paged with a cursor. Entries hidden by policy are left out and counted.",
		Effect:         server.ReadOnly,
		Family:         string(toolkit.FamilyRead),
		Action:         string(workspace.ActionRead),
		MaxResultBytes: listResultBytes,
		Comments:       comments,
	}, func(ctx context.Context, req *server.Request, in ListFilesIn) (ListFilesOut, error) {
		return listFiles(ctx, reg, req, in)
	})
}
