// Package goindex indexes the declarations of the Go files of a repository
// snapshot and searches them by name. It is the engine of the search_symbol
// tool; the tool resolves workspaces and revisions, authorizes the caller,
// and maps [Query] and [Result] to its JSON input and output.
//
// # Reading
//
// An index takes its input through a [Source], which lists a snapshot's
// files and reads them. [SnapshotSource] reads a revision through a
// [workspace.Snapshot], so the workspace's entry-name rules, its secret
// patterns and the snapshot's policies apply:
//
//   - a commit: files carry their blob ids, so the index reads only blobs
//     it has not parsed before;
//   - the working tree ("worktree"): files are identified by the git blob
//     id of their contents, so a working tree and a commit share parsed
//     files; an unchanged file (same size and modification time, not
//     modified just before it was read) is not even read again.
//
// # Building and caching
//
// An [Indexer] builds indexes and keeps:
//
//   - parsed files by blob id, so that the index of a second revision
//     parses only the files that changed (bounded by
//     IndexerOptions.BlobCacheBytes);
//   - the last few indexes of immutable revisions (IndexerOptions.MaxIndexes);
//   - optionally, with IndexerOptions.CacheDir, indexes on disk, so that a
//     new process answers its first query without parsing. A file holds
//     the index's tables byte for byte as searches use them (tables.go),
//     and loading maps it: nothing is decoded, interned or grouped. Files
//     are versioned, checksummed, checked for consistency, written
//     atomically and pruned least recently used first.
//
// Concurrent requests for the index of one revision share one build. One
// goroutine reads files (the workspace serializes its object reads) and GOMAXPROCS
// goroutines parse them with go/parser, through a short queue, so memory
// stays bounded. Files with syntax errors are indexed as far as they parse
// and counted in [Facts].
//
//	snap, err := reg.Snapshot(ctx, acc, workspaceID, revision)
//	...
//	src := goindex.NewSnapshotSource(snap.Shared())
//	ix := goindex.NewIndexer(goindex.IndexerOptions{})
//	res, err := ix.Search(ctx, src, goindex.Options{}, goindex.Query{Query: "bufio.NewReader"})
//
// # What is indexed
//
// Packages; functions; methods, with their receiver type and whether it is
// a pointer; types (struct, interface, alias, other defined types); struct
// fields (embedded ones too) and interface methods as entries of their own;
// each name of const and var declarations. Each entry carries its import
// path (from the nearest go.mod, or below vendor/), file, 1-based line and
// column, whether its name is exported, its signature (type parameters
// included), the first sentence of its doc comment, whether it is in a
// _test.go file, and the file's //go:build expression. vendor/ and
// testdata/ (and directories starting with . or _) are left out unless
// [Options] asks for them.
//
// # Searching
//
// A [Query] matches a name, optionally qualified (bufio.NewReader,
// Reader.Read, (*Server).Serve, net/http), in one of several [Match] modes,
// and ranks matches by tier: exact, exact ignoring case, prefix, camel-case
// initials (NR finds NewReader), substring, fuzzy (srvr finds Server).
// Within a tier, exported declarations come first, then those outside tests,
// in shallower packages, with shorter names, and last in a stable order
// (import path, file, position). Results are paged with opaque cursors that
// are checksummed and bound to the index and the query.
//
// Errors caused by the query (a bad mode, kind, regular expression, glob,
// limit or cursor) are [errclass.Error]s of class invalid_input.
package goindex
