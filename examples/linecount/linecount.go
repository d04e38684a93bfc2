// Package linecount is a worked example of a repository tool written
// outside this module's tools/: count_lines counts the lines of the files
// that match a glob at a revision. It shows the whole contract in one
// file: an input that declares its scope by embedding toolkit.Target, a
// read through a workspace.Snapshot (which applies the caller's policy to
// every entry), classed errors, and one registration call. The schema's
// descriptions are the doc comments below, which the framework's generator
// copies into comments_gen.go, as it can for any module.
package linecount

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments

import (
	"bytes"
	"context"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// In is what count_lines takes. Target carries workspace_id and revision,
// and makes the input a workspace.Scoped: the server's Authorize hook
// (toolkit.Authorizer) checks the workspace before the tool runs. Pattern
// is a filter, not a path, so it stays out of the scope.
type In struct {
	toolkit.Target
	// Files to count: a glob such as **/*.go.
	Pattern string `json:"pattern" jsonschema:"minLength=1,maxLength=512"`
}

// Out is what count_lines returns.
type Out struct {
	Revision string `json:"revision"` // The full commit SHA read.
	Files    int    `json:"files"`    // How many files were counted.
	Lines    int    `json:"lines"`    // Newlines in those files.
	Omitted  int    `json:"omitted"`  // Entries the caller may not see; left out.
}

// Register adds count_lines to s, reading through reg.
func Register(s *server.Server, reg *workspace.Registry) error {
	return server.Register(s, server.Tool{
		Name:        "count_lines",
		Description: "Count the lines of the files matching a glob at a revision (default HEAD).",
		Effect:      server.ReadOnly,
		Action:      string(workspace.ActionRead),
		Comments:    toolkit.Comments(goComments()),
	}, func(ctx context.Context, req *server.Request, in In) (Out, error) {
		snap, err := toolkit.Snapshot(ctx, reg, req, in.Target)
		if err != nil {
			return Out{}, err // already classed: not_found, permission_denied...
		}
		out := Out{Revision: snap.Revision().SHA}
		opts := workspace.WalkOptions{Recursive: true, Pattern: in.Pattern}
		stats, err := snap.Walk(ctx, "", opts, func(e workspace.Entry) error {
			if e.Type != workspace.TypeFile {
				return nil
			}
			// The id the walk gave reads the blob without resolving the
			// path again; the snapshot checks both.
			f, err := snap.ReadBlob(ctx, e.Path, e.SHA, workspace.ReadOptions{})
			if err != nil {
				return err
			}
			if f.Truncated {
				return server.Errorf(server.InvalidInput, "%s is larger than one read", e.Path).
					WithHint("narrow the pattern")
			}
			out.Files++
			out.Lines += bytes.Count(f.Data, []byte("\n"))
			return nil
		})
		out.Omitted = stats.Omitted
		return out, err
	})
}
