package readfile

import (
	"context"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// A file that read_file cut at its byte budget is a resource the person
// can see whole: the result links it (a resource_link content item), and
// resources/read serves it, with the caller's policies and the path
// normalization of read_file, at
//
//	repo://<workspace>/<commit>/<path>
//
// each path segment percent-encoded. Only commits are linked: the working
// tree changes under a link.
const (
	uriScheme   = "repo://"
	uriTemplate = "repo://{workspace}/{commit}/{+path}"
)

// fileURI is the resource URI of path at commit in workspace id.
func fileURI(id, commit, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return uriScheme + id + "/" + commit + "/" + strings.Join(segs, "/")
}

// parseFileURI splits a resource URI into its workspace, commit and path.
func parseFileURI(uri string) (id, commit, p string, err error) {
	rest, ok := strings.CutPrefix(uri, uriScheme)
	id, rest, ok2 := strings.Cut(rest, "/")
	commit, rest, ok3 := strings.Cut(rest, "/")
	if !ok || !ok2 || !ok3 || id == "" || !isCommit(commit) || rest == "" {
		return "", "", "", server.Errorf(server.InvalidInput, "%q is not a file URI of this server (%s)", uri, uriTemplate)
	}
	if p, err = url.PathUnescape(rest); err != nil {
		return "", "", "", server.Errorf(server.InvalidInput, "the path of %q is not percent-encoded right", uri).Wrap(err)
	}
	return id, commit, p, nil
}

func isCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// Links names the whole file when the read was cut and the file is small
// enough for resources/read to serve it.
func (o ReadFileOut) Links() []server.Link {
	if !o.Truncated || o.workspace == "" || !isCommit(o.Revision) || o.Type != string(workspace.TypeFile) || o.Size > o.maxResource {
		return nil
	}
	return []server.Link{{
		URI: fileURI(o.workspace, o.Revision, o.Path), Name: path.Base(o.Path), Title: o.Path + " at " + o.Revision[:12],
		Description: "The whole file, of which this result shows a part.", Size: o.Size,
	}}
}

// fileTemplate serves the files read_file links.
func fileTemplate(reg *workspace.Registry) server.ResourceTemplate {
	return server.ResourceTemplate{
		URITemplate: uriTemplate,
		Name:        "file",
		Title:       "A file of a repository at a commit",
		Description: "The whole of a file that a read_file result cut at its byte budget, as the caller's policies let it read the file.",
		Read: func(ctx context.Context, caller, uri string) (server.ResourceContents, error) {
			return readResource(ctx, reg, caller, uri)
		},
	}
}

func readResource(ctx context.Context, reg *workspace.Registry, caller, uri string) (server.ResourceContents, error) {
	id, commit, p, err := parseFileURI(uri)
	if err != nil {
		return server.ResourceContents{}, err
	}
	target := toolkit.Target{Selector: toolkit.Selector{WorkspaceID: id}, Revision: commit}
	if err := reg.AuthorizeScope(caller, workspace.ActionRead, target.Scope().WithPaths(p)); err != nil {
		return server.ResourceContents{}, err
	}
	snap, err := reg.Snapshot(ctx, workspace.Access{Identity: caller, Action: workspace.ActionRead}, id, commit)
	if err != nil {
		return server.ResourceContents{}, err
	}
	limit := reg.Options().MaxReadBytes
	f, err := snap.ReadFile(ctx, p, workspace.ReadOptions{Limit: limit})
	switch {
	case err != nil:
		return server.ResourceContents{}, err
	case f.Type != workspace.TypeFile:
		return server.ResourceContents{}, server.Errorf(server.NotFound, "%s at %s is a %s, not a file", f.Path, commit, f.Type)
	case f.Truncated:
		return server.ResourceContents{}, server.Errorf(server.InvalidInput, "%s at %s has %d bytes, more than the %d a resource may have; read it with read_file by parts", f.Path, commit, f.Size, limit)
	case utf8.Valid(f.Data):
		return server.ResourceContents{MIMEType: "text/plain; charset=utf-8", Text: string(f.Data)}, nil
	}
	return server.ResourceContents{MIMEType: "application/octet-stream", Blob: f.Data}, nil
}
