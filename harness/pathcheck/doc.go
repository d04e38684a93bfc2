// Package pathcheck decides whether a path a model gave may be used in a
// workspace. The harness applies it itself, to its own tools and to every
// configured path argument of an MCP server's tools, so a server that
// would read outside its workspace (or a hidden credential inside it) is
// never asked to.
//
//	rel, err := pathcheck.Check(root, "docs/../README.md", pathcheck.Options{})
//	// rel == "README.md"
//
// Refused before any I/O: empty paths, NUL and control bytes, backslashes,
// ".." components, absolute paths outside root, any ".git" component,
// hidden components (starting with ".") unless AllowHidden, and whatever
// the workspace layer's path grammar refuses (internal/pathrule: drive
// letters and URLs, percent-encoded traversal, .git lookalikes, oversized
// paths), so the same attack list fails here and in repo-mcp. Symbolic links
// of the existing part of the path are then resolved and must stay inside
// the root.
package pathcheck
