package gonav

import (
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Relations go_navigate answers.
const (
	Definition      = "definition"
	References      = "references"
	Implementations = "implementations"
	Callers         = "callers"
	Callees         = "callees"
	PackageAPI      = "package_api"
)

// GoNavigateIn is what go_navigate takes.
type GoNavigateIn struct {
	toolkit.Target
	// Relation is the question: definition; references (each with its enclosing function); implementations (the types that implement an interface, the interfaces a type implements, and the corresponding methods); callers or callees (a static call graph, to a bounded depth); package_api (a package's exported API, like go doc).
	Relation string `json:"relation" jsonschema:"enum=definition,enum=references,enum=implementations,enum=callers,enum=callees,enum=package_api"`
	// Symbol names what to ask about as search_symbol names it: pkg.Name, pkg.Type.Method, (*pkg.Type).Method, pkg.Type.Field, where pkg is an import path or a package name; an import path for package_api. Give symbol, or path with line and column.
	Symbol string `json:"symbol,omitempty" jsonschema:"maxLength=512"`
	// Path is a Go file of the repository; with line and column it names the identifier at that position.
	Path string `json:"path,omitempty" jsonschema:"maxLength=4096"`
	// Line is 1-based.
	Line int `json:"line,omitempty" jsonschema:"minimum=1"`
	// Column is 1-based, in bytes.
	Column int `json:"column,omitempty" jsonschema:"minimum=1"`
	// ExcludeTests leaves results in _test.go files out.
	ExcludeTests bool `json:"exclude_tests,omitempty"`
	// Depth bounds callers and callees: 1 is direct calls only. Default 1; at most 4.
	Depth int `json:"depth,omitempty" jsonschema:"minimum=1,maximum=4"`
	// Limit is the most results one page holds. Default 100; at most 1000.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=1000"`
	// Cursor continues a query: the next_cursor of the previous page, with the same other arguments.
	Cursor string `json:"cursor,omitempty" jsonschema:"maxLength=256"`
}

// Scope names the file a position query reads, so the caller's path
// policy applies to it before the handler runs.
func (in GoNavigateIn) Scope() workspace.Scope {
	if in.Path == "" {
		return in.Target.Scope()
	}
	return in.Target.Scope().WithPaths(in.Path)
}

// GoNavigateOut is one page of a navigation's results.
type GoNavigateOut struct {
	// Revision is the full commit SHA read.
	Revision string `json:"revision"`
	// Relation is the question answered.
	Relation string `json:"relation"`
	// Target is what the symbol or position named; absent when it was ambiguous.
	Target *Location `json:"target,omitempty"`
	// Candidates lists what an ambiguous symbol may name, best first; no results are given then: ask again with one of them.
	Candidates []Location `json:"candidates,omitempty"`
	// Results are this page's locations, sorted by file, line and column (package_api: in declaration order).
	Results []Location `json:"results"`
	// Total counts the results of every page.
	Total int `json:"total"`
	// Truncated says more results follow this page.
	Truncated bool `json:"truncated"`
	// NextCursor continues the query when it is truncated.
	NextCursor string `json:"next_cursor,omitempty"`
	// Precision says how far the results can be trusted.
	Precision Precision `json:"precision"`
}

// Location is one place in the source.
type Location struct {
	// File is a path in the repository, or $GOROOT/... or $GOMODCACHE/... for a dependency's file.
	File string `json:"file"`
	// Line is 1-based.
	Line int `json:"line"`
	// Column is 1-based, in bytes.
	Column int `json:"column"`
	// Text is the line, without its newline (at most 512 bytes of it).
	Text string `json:"text"`
	// Kind says what is there: declaration, reference, related_reference (a use of a method that implements the target method or that it implements, named in via: a call that may reach the target), syntactic_reference (matched by name in a package that did not type-check), type, interface, method, func, var, const, field, package, call, dynamic_call.
	Kind string `json:"kind"`
	// Name is the qualified name of the symbol at this location (references: not set).
	Name string `json:"name,omitempty"`
	// Package is the import path of the package the location is in.
	Package string `json:"package"`
	// Test says the file is a _test.go file.
	Test bool `json:"test,omitempty"`
	// Enclosing is the function a reference or call is in (pkg.Func, pkg.Type.Method); empty at package level.
	Enclosing string `json:"enclosing,omitempty"`
	// Depth is how many calls away a caller or callee is (1: direct).
	Depth int `json:"depth,omitempty"`
	// Via is, for a callee, the call site in the caller (file:line:column); for a caller, the function it calls; for a related_reference, the method used.
	Via string `json:"via,omitempty"`
	// Signature is the declaration, as go doc shows it (package_api, target).
	Signature string `json:"signature,omitempty"`
	// Doc is the first sentence of the doc comment (package_api).
	Doc string `json:"doc,omitempty"`
}

// Precision says how the results were found.
type Precision struct {
	// Mode is typed (every package the results come from type-checked), partial (some did not; their results are found by name, see failed), or syntactic (no type information at all: go list could not run; see reason).
	Mode string `json:"mode"`
	// Reason says why the mode is not typed.
	Reason string `json:"reason,omitempty"`
	// Failed lists the repository's packages that did not type-check, and why (at most 20): of the packages the query read, every problem; of the others, what go list and their files said (their function bodies may not be checked yet).
	Failed []PackageProblem `json:"failed,omitempty"`
	// FailedTotal counts them all.
	FailedTotal int `json:"failed_total,omitempty"`
	// CallGraph says how callers and callees were found, and what they may miss.
	CallGraph string `json:"call_graph,omitempty"`
	// Load describes the type information used.
	Load LoadFacts `json:"load"`
}

// PackageProblem is a package that did not type-check.
type PackageProblem struct {
	Package string `json:"package"`
	// Problems are its first errors.
	Problems []string `json:"problems"`
}

// LoadFacts describe the program the results come from.
type LoadFacts struct {
	// Packages counts the packages go list reported, dependencies and test variants included; those no query has needed yet are checked after the first answer.
	Packages int `json:"packages"`
	// Checked counts those type-checked for this revision by the load, of the ones the query that started it needs; the others were reused from earlier revisions with the same content, read from the type information kept on disk by an earlier process or replica (the repository's packages with their indexes), built in (unsafe), or left for later.
	Checked int `json:"checked"`
	// DurationMS is how long loading took, 0 when the revision was already loaded.
	DurationMS int64 `json:"duration_ms"`
}

// Text renders the answer one location per line: file:line:column, kind,
// name or enclosing function, and the line's text, fenced as repository
// data.
func (o GoNavigateOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s", o.Relation, o.Revision)
	if o.Target != nil {
		fmt.Fprintf(&b, " of %s %s (%s:%d:%d)", o.Target.Kind, o.Target.Name, o.Target.File, o.Target.Line, o.Target.Column)
	}
	fmt.Fprintf(&b, ": %s; precision %s", toolkit.Count(o.Total, "result", "results"), o.Precision.Mode)
	if o.Precision.FailedTotal > 0 {
		fmt.Fprintf(&b, " (%s did not type-check:", toolkit.Count(o.Precision.FailedTotal, "package", "packages"))
		for _, f := range o.Precision.Failed {
			fmt.Fprintf(&b, " %s: %s;", f.Package, strings.Join(f.Problems, "; "))
		}
		b.WriteString(")")
	}
	b.WriteString("\n")
	if len(o.Candidates) > 0 {
		b.WriteString("The symbol is ambiguous; ask again with one of:\n")
		for _, c := range o.Candidates {
			fmt.Fprintf(&b, "%s %s (%s:%d:%d)\n", c.Kind, c.Name, c.File, c.Line, c.Column)
		}
	}
	var lines strings.Builder
	for _, r := range o.Results {
		fmt.Fprintf(&lines, "%s:%d:%d %s", r.File, r.Line, r.Column, r.Kind)
		switch {
		case r.Signature != "":
			fmt.Fprintf(&lines, " %s", r.Signature)
		case r.Name != "":
			fmt.Fprintf(&lines, " %s", r.Name)
		}
		if r.Enclosing != "" && r.Enclosing != r.Name {
			fmt.Fprintf(&lines, " in %s", r.Enclosing)
		}
		if r.Via != "" {
			fmt.Fprintf(&lines, " via %s", r.Via)
		}
		if r.Doc != "" {
			fmt.Fprintf(&lines, " // %s", r.Doc)
		}
		fmt.Fprintf(&lines, ": %s\n", r.Text)
	}
	if lines.Len() > 0 {
		b.WriteString(toolkit.Fence("Results:", lines.String()))
		b.WriteString("\n")
	}
	if o.Precision.CallGraph != "" {
		fmt.Fprintf(&b, "Call graph: %s.\n", o.Precision.CallGraph)
	}
	if o.Truncated {
		fmt.Fprintf(&b, "[more results: continue with cursor %s]", o.NextCursor)
	}
	return b.String()
}
