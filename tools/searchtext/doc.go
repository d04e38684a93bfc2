// Package searchtext provides search_text: literal and regular-expression
// search over the files of any revision of a workspace (or its working
// tree), answered from a trigram index keyed by blob id. Package textindex
// is the index; this package resolves the workspace and revision, lists
// the files the caller may read (policy and secret patterns applied before
// anything is matched), plans the query, verifies candidates with the real
// expression, and pages the results in (path, line) order.
//
//	err := searchtext.Register(s, reg, searchtext.Options{CacheDir: dir, WarmAs: "op"})
//	defer s.Close() // closes the index
//
// A search reads the revision's listing, asks the index which blobs may
// match, scans the blobs the index does not know yet (and starts indexing
// them in the background, once per workspace), then reads and matches the
// candidates in parallel, in path order. Matching runs the expression
// only where it must: literals are found by their rarest byte; exact
// literals between ^, $ and \b (whole_word) are checked on the bytes
// around each hit; whole lines of one class (^\s*$) are checked byte by
// byte; other expressions run only on lines that hold a required literal
// or pass a byte filter. The working tree is HEAD's index
// with an overlay: the files git status would call changed or untracked
// are read from disk, the others are HEAD's blobs. A search the time
// budget cuts answers with the files before the first one it did not
// match, and a cursor that resumes there. Matching is line by line, as grep does: no match
// spans a newline, ^ and $ (and \A and \z) are line anchors, and a file with a NUL byte in
// its first 8000 bytes is binary (git's rule) and never searched.
package searchtext

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments
