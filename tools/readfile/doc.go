// Package readfile provides the tools that read a repository's tree at a
// pinned revision: read_file (a file's text, by line range, within a byte
// budget) and list_files (a directory's entries, paged). Both are read-only
// and need the read action on the workspace and the path.
//
//	reg, _ := workspace.Open(cfg, workspace.Options{})
//	s := server.New(info, server.Options{Authorize: toolkit.Authorizer(reg)})
//	err := readfile.Register(s, reg, readfile.Options{})
//
// File content is returned as text content, fenced and marked as data from
// the repository; the structured result carries what a caller needs to
// trust and continue the read (the commit SHA, the blob SHA, the line range
// returned and where to continue), not the content a second time.
package readfile

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments
