// Package source defines ToolSource, the one way the harness reaches tools,
// and its two kinds: the built-in Local source (list_files, read_file and
// write_note over a local workspace, paths checked by the harness) and one
// MCP source per configured server, built on package client.
//
//	src := source.NewMCP("repo", client.Command{Path: "repo-mcp", Args: []string{"serve"}}, client.Options{})
//	// or, for a server over Streamable HTTP:
//	src := source.NewMCPHTTP("repo", client.Endpoint{URL: url, Header: header}, client.Options{})
//	defer src.Close()
//	tools, err := src.Discover(ctx)             // what the server claims
//	res, err := src.Call(ctx, "read_file", json.RawMessage(`{"path":"README.md"}`))
//	var ce *source.CallError
//	if errors.As(err, &ce) && ce.Outcome.Unknown() { ... reconcile, never replay ... }
//
// A source only discovers and calls. Everything a source says about its
// tools (descriptions, schemas, annotations) is a claim: the harness decides
// the allowlist, effects, schemas and approvals above it, so swapping one
// source for another can never bypass them.
package source
