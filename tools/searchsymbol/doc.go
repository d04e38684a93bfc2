// Package searchsymbol provides search_symbol: where a Go declaration is,
// by name, at any revision of a workspace, without a checkout. Package
// goindex is its engine; this package resolves the workspace and revision,
// authorizes the caller (the search action, and each result's file), keeps
// one indexer and one repository handle per workspace, and maps the JSON
// input and output.
//
//	err := searchsymbol.Register(s, reg, searchsymbol.Options{CacheDir: dir, WarmAs: "op"})
//	defer s.Close() // releases the index
package searchsymbol

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments
