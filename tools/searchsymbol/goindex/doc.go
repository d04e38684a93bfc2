// Package goindex indexes the declarations of the Go files of a repository
// snapshot and searches them by name.
//
// An [Indexer] builds indexes and keeps them: parsed files by blob id (so a
// second revision parses only the files that changed), whole indexes of
// immutable revisions in memory, and optionally on disk so that a new
// process answers without parsing. It reads files through a [Source]: a
// commit's tree ([GitSource], over a repository opened with
// [OpenRepository]) or a directory ([DirSource], over an [os.Root]).
//
//	repo, err := goindex.OpenRepository(dir)
//	...
//	defer repo.Close()
//	src, err := goindex.NewGitSource(repo.Repository, commit)
//	...
//	ix := goindex.NewIndexer(goindex.IndexerOptions{})
//	res, err := ix.Search(ctx, src, goindex.Options{}, goindex.Query{Query: "bufio.NewReader"})
//
// The index holds packages, functions, methods (with their receiver type),
// types (struct, interface, alias, other defined types), struct fields and
// interface methods, and every name of const and var declarations. Each
// entry carries its import path (from the nearest go.mod, or below vendor/),
// file, 1-based line and column, signature, the first sentence of its doc
// comment, and the file's build constraint. Files with syntax errors are
// indexed as far as they parse and counted in [Facts].
//
// A [Query] matches a name, optionally qualified (bufio.Reader.Read,
// (*Server).Serve), in one of several modes, and ranks matches by tier:
// exact, exact ignoring case, prefix, camel-case initials (NR finds
// NewReader), substring, fuzzy (srvr finds Server). Within a tier, exported
// declarations come first, then those outside tests, in shallower packages,
// with shorter names, and finally in a stable order (import path, file,
// position). Results are paged with opaque cursors bound to the index and
// the query.
//
// Errors caused by the query (a bad mode, kind, regular expression, limit
// or cursor) are [server.Error]s of class invalid_input.
package goindex
