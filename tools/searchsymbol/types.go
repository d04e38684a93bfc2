package searchsymbol

import (
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/tools/searchsymbol/goindex"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
)

// SearchSymbolIn is what search_symbol takes.
type SearchSymbolIn struct {
	toolkit.Target
	// Query is a name, optionally qualified: NewReader, bufio.NewReader, Reader.Read, (*Server).Serve, net/http.Server, or net/http for a package. Empty matches everything the filters let through.
	Query string `json:"query" jsonschema:"maxLength=256"`
	// Kinds keeps only these kinds of declaration; "type" means every type kind.
	Kinds []string `json:"kinds,omitempty" jsonschema:"maxItems=12,enum=package,enum=func,enum=method,enum=struct,enum=interface,enum=alias,enum=type,enum=field,enum=interface_method,enum=const,enum=var"`
	// Package keeps only packages whose import path is this one or below it (net/http holds net/http/httptest).
	Package string `json:"package,omitempty" jsonschema:"maxLength=512"`
	// Path keeps only declarations in files matching this glob (** spans directories; a pattern without a slash matches base names).
	Path string `json:"path,omitempty" jsonschema:"maxLength=512"`
	// ExportedOnly keeps only exported names.
	ExportedOnly bool `json:"exported_only,omitempty"`
	// IncludeTests includes declarations in _test.go files.
	IncludeTests bool `json:"include_tests,omitempty"`
	// IncludeVendor indexes vendor/ directories too.
	IncludeVendor bool `json:"include_vendor,omitempty"`
	// IncludeTestdata indexes testdata/ directories (and others the go command ignores) too.
	IncludeTestdata bool `json:"include_testdata,omitempty"`
	// Match is how the name is matched: auto (every tier, ranked), exact, prefix, substring, fuzzy, or regexp (RE2, over the name).
	Match string `json:"match,omitempty" jsonschema:"enum=auto,enum=exact,enum=prefix,enum=substring,enum=fuzzy,enum=regexp"`
	// Limit is the most symbols one page holds. Default 50; at most 500.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500"`
	// Cursor continues a search: the next_cursor of the previous page, with the same other arguments.
	Cursor string `json:"cursor,omitempty" jsonschema:"maxLength=1024"`
}

func (in SearchSymbolIn) query() goindex.Query {
	return goindex.Query{
		Query: in.Query, Kinds: in.Kinds, Package: in.Package, Path: in.Path,
		ExportedOnly: in.ExportedOnly, IncludeTests: in.IncludeTests,
		Match: goindex.Match(in.Match), Limit: in.Limit, Cursor: in.Cursor,
	}
}

// SearchSymbolOut is one page of matches, best first.
type SearchSymbolOut struct {
	// Revision is the full commit SHA searched, or "worktree".
	Revision string `json:"revision"`
	// Symbols are the matches of this page, best first.
	Symbols []Symbol `json:"symbols"`
	// Total is the number of matches in all pages.
	Total int `json:"total"`
	// Truncated says more matches follow this page.
	Truncated bool `json:"truncated"`
	// NextCursor continues the search when it is truncated.
	NextCursor string `json:"next_cursor,omitempty"`
	// Index describes the index searched.
	Index IndexFacts `json:"index"`
}

// Symbol is one declaration.
type Symbol struct {
	Name string `json:"name"`
	// QualifiedName is pkg.Name, pkg.Type.Method or pkg.Struct.Field; the import path for a package.
	QualifiedName string `json:"qualified_name"`
	// Kind is package, func, method, struct, interface, alias, type, field, interface_method, const or var.
	Kind string `json:"kind"`
	// Package is the import path.
	Package string `json:"package"`
	// Container is the type a method, field or interface method belongs to, with a leading * for a pointer receiver.
	Container string `json:"container,omitempty"`
	// File is the path of the declaring file in the repository.
	File string `json:"file"`
	// Line is 1-based.
	Line int `json:"line"`
	// Column is 1-based, in bytes.
	Column   int  `json:"column"`
	Exported bool `json:"exported"`
	// Signature is the declaration's header.
	Signature string `json:"signature"`
	// Doc is the first sentence of its doc comment.
	Doc string `json:"doc,omitempty"`
	// Test says the declaration is in a _test.go file.
	Test bool `json:"test,omitempty"`
	// BuildConstraint is the file's build constraint: its //go:build expression and what its name implies (_linux.go).
	BuildConstraint string `json:"build_constraint,omitempty"`
	// Match is how the name matched: exact, exact_fold, prefix, initials, substring, fuzzy or regexp.
	Match string `json:"match"`
}

// IndexFacts describe the index a search used.
type IndexFacts struct {
	// Files is the number of .go files indexed.
	Files int `json:"files"`
	// ParseFailures counts files with syntax errors, indexed as far as they parsed.
	ParseFailures int `json:"parse_failures"`
	// Symbols is the number of declarations indexed.
	Symbols int `json:"symbols"`
	// FromCache says the index was ready (in memory or on disk) rather than built for this call.
	FromCache bool `json:"from_cache"`
}

func output(revision string, res *goindex.Result) SearchSymbolOut {
	out := SearchSymbolOut{
		Revision: revision, Symbols: make([]Symbol, 0, len(res.Entries)),
		Total: res.Total, Truncated: res.Truncated, NextCursor: res.NextCursor,
		Index: IndexFacts{
			Files: res.Facts.Files, ParseFailures: res.Facts.ParseFailures, Symbols: res.Facts.Symbols,
			FromCache: res.Facts.From != goindex.FromBuild,
		},
	}
	for _, e := range res.Entries {
		out.Symbols = append(out.Symbols, Symbol{
			Name: e.Name, QualifiedName: e.QualifiedName, Kind: e.Kind.String(), Package: e.Package,
			Container: e.Container, File: e.File, Line: e.Line, Column: e.Column, Exported: e.Exported,
			Signature: e.Signature, Doc: e.Doc, Test: e.Test, BuildConstraint: e.BuildConstraint, Match: e.Match,
		})
	}
	return out
}

// Text lists the matches, one per line, as file:line:column, kind, name and
// signature.
func (o SearchSymbolOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %s at %s (%s indexed", len(o.Symbols), toolkit.Count(o.Total, "match", "matches"), o.Revision, toolkit.Count(o.Index.Files, "file", "files"))
	if o.Index.ParseFailures > 0 {
		fmt.Fprintf(&b, ", %d with syntax errors", o.Index.ParseFailures)
	}
	b.WriteString(")\n")
	for _, s := range o.Symbols {
		fmt.Fprintf(&b, "%s:%d:%d %s %s: %s\n", s.File, s.Line, s.Column, s.Kind, s.QualifiedName, s.Signature)
	}
	if o.Truncated {
		fmt.Fprintf(&b, "[more matches: continue with cursor %s]", o.NextCursor)
	}
	return b.String()
}
