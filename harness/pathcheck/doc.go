// Package pathcheck decides whether a path a model gave may be used in a
// workspace. The harness applies it itself, to its own tools and to every
// configured path argument of an MCP server's tools, so a server that
// would read outside its workspace (or a hidden credential inside it) is
// never asked to.
//
//	rel, err := pathcheck.Check(root, "docs/./README.md", pathcheck.Options{})
//	// rel == "docs/README.md"
//	ws := pathcheck.NewRoot(root, pathcheck.Options{}) // the root resolved once, for many checks
//	rel, err = ws.Check("docs/README.md")
//
// A path must pass workspace.CleanPath, the rules repo-mcp applies to its
// own callers (no absolute forms, backslashes, NUL or control bytes,
// percent-encoded dots or slashes, ".git" in any spelling, size limits),
// so the harness is never less strict than the server it fronts. It is
// then refused for what only matters when the path goes to a server the
// harness does not control: any ".." component, a leading "~", and hidden
// components (starting with ".") unless AllowHidden. An absolute path is
// taken only inside root. Symbolic links of the existing part of the path
// are then resolved: where they lead must stay inside the root and meet
// the same component rules, so a committed link "meta" -> ".git" does not
// make "meta/config" a way in.
package pathcheck
