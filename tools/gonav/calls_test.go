package gonav

import (
	"slices"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestCallGraphFindsLazily asks for the callers of a function in a
// package that also calls a method of an interface literal, which no
// package-level name leads to: finding it checks the package again. The
// call graph finds a call's caller and callee when an answer names them,
// and callers names a function by the index, so only callees, which
// names that method, checks the package again; in the process that
// checked it and in one reading it from disk. A generic unexported
// caller, which export data cannot declare, is named without it; the
// callers of a method, which count the interfaces its type implements,
// do not find a local interface whose method names T's lack.
func TestCallGraphFindsLazily(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "calls", map[string]gitfixture.File{
		"go.mod": gitfixture.Text("module example.com/calls\n\ngo 1.22\n"),
		"p/p.go": gitfixture.Text(`package p

func Helper() int { return 1 }

func Use(v any) int {
	if s, ok := v.(interface{ Size() int }); ok {
		return s.Size()
	}
	return Helper()
}

func apply[T any](v T) int { return Helper() }

type T struct{}

func (T) Run() int { return apply(0) }

func Local() int {
	type sizer interface{ Size() int }
	var s sizer
	return s.Size() + T{}.Run()
}
`),
	})
	opts := testOptions(t)
	for _, name := range []string{"checked", "from disk"} {
		t.Run(name, func(t *testing.T) {
			c, sv := serve(t, repo.Dir, opts)
			out := navigate(t, c, map[string]any{"relation": Callers, "symbol": "p.Helper"})
			if len(out.Results) != 2 || out.Results[0].Enclosing != "example.com/calls/p.Use" || out.Results[1].Enclosing != "example.com/calls/p.apply" {
				t.Errorf("callers of p.Helper: %+v", out.Results)
			}
			prog := sv.progs[0].prog
			if n := rechecked(prog); n != 0 {
				t.Errorf("callers checked %d packages again", n)
			}
			out = navigate(t, c, map[string]any{"relation": Callers, "symbol": "p.T.Run"})
			if len(out.Results) != 1 || out.Results[0].Enclosing != "example.com/calls/p.Local" {
				t.Errorf("callers of p.T.Run: %+v", out.Results)
			}
			if n := rechecked(prog); n != 0 {
				t.Errorf("callers of a method checked %d packages again", n)
			}
			out = navigate(t, c, map[string]any{"relation": Callees, "symbol": "p.Use"})
			var names []string
			for _, l := range out.Results {
				names = append(names, l.Name)
			}
			// The interface literal's method has no implementation.
			if want := []string{"example.com/calls/p.Helper"}; !slices.Equal(names, want) {
				t.Errorf("callees of p.Use: %v, want %v", names, want)
			}
			if n := rechecked(prog); n != 1 {
				t.Errorf("callees checked %d packages again, want 1", n)
			}
			sv.loader.store.wait()
		})
	}
}
