// Package history provides the tools that read a repository's history at
// a pinned revision, under the caller's policy: history (a log of commits
// filtered by path, time, author, message and content, or the blame of a
// file's lines) and diff (one commit against its parent, or any two
// revisions, as file statistics or patches). Both are read-only and need
// the read action.
//
//	reg, _ := workspace.Open(cfg, workspace.Options{})
//	s := server.New(info, server.Options{Authorize: toolkit.Authorizer(reg)})
//	err := history.Register(s, reg, history.Options{})
//
// Two tools rather than four: log and blame both answer "who changed this,
// when and why" with a list of commits, and show_commit is a diff of a
// commit against its first parent with the commit's metadata; each pair
// shares its output shape, and every tool costs the host tokens on every
// request.
//
// The workspace layer does the reading (workspace.Snapshot.History,
// DiffFrom, Patch, Blame): paths a caller may not see never reach this
// package. Results are bounded and paged with cursors that carry the
// resolved commits and a digest of the arguments, so the next page comes
// from the same commits and the same question, or is refused.
package history

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments
