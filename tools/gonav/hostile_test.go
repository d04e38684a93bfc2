package gonav

import (
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestHostileModule asks about a module with an import cycle, an import
// that does not exist and a cgo file: each call answers, the broken
// packages are named with their errors, and names the types could not
// resolve are matched by name.
func TestHostileModule(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "hostile", txtarFiles(t, "testdata/hostile.txtar"))
	c, _ := serve(t, repo.Dir, testOptions(t))

	out := navigate(t, c, map[string]any{"relation": "references", "symbol": "lib.Total"})
	got := kinds(out)
	want := map[string]string{
		"lib/lib.go:3:6":      "declaration",
		"lib/lib.go:5:28":     "reference",
		"ghost/ghost.go:8:29": "reference",
		// nope.Total has no type: its package does not exist.
		"ghost/ghost.go:8:44": "syntactic_reference",
	}
	for loc, kind := range want {
		if got[loc] != kind {
			t.Errorf("references of lib.Total: %s is %q, want %q (all: %v)", loc, got[loc], kind, got)
		}
	}
	if out.Precision.Mode != "partial" {
		t.Errorf("precision %q, want partial", out.Precision.Mode)
	}
	failed := map[string]string{}
	for _, f := range out.Precision.Failed {
		failed[f.Package] = strings.Join(f.Problems, "; ")
	}
	for pkg, why := range map[string]string{
		"example.com/hostile/ghost": "nope",
		"example.com/hostile/cyc/a": "import cycle",
	} {
		if !strings.Contains(failed[pkg], why) {
			t.Errorf("failed packages %v: want %s failing with %q", failed, pkg, why)
		}
	}

	// The cycle's packages still answer about their own code.
	out = navigate(t, c, map[string]any{"relation": "callers", "symbol": "cyc/a.A"})
	if kinds(out)["cyc/b/b.go:5:25"] != "call" {
		t.Errorf("callers of a.A across the cycle: %v", kinds(out))
	}

	// cgo files are left out (CGO_ENABLED=0); the package's other files answer.
	if out := navigate(t, c, map[string]any{"relation": "definition", "symbol": "cgo.Pure"}); len(out.Results) != 1 {
		t.Errorf("cgo.Pure: %+v", out.Results)
	}
	if res := navigateRaw(t, c, map[string]any{"relation": "definition", "symbol": "cgo.Hello"}); res.ErrorClass() != "not_found" {
		t.Errorf("cgo.Hello, declared in a cgo file: %s %s", res.ErrorClass(), res.Text)
	}
}

// TestHostileQueries gives inputs that must be refused, quickly and with
// the class a model can act on.
func TestHostileQueries(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "hostile", txtarFiles(t, "testdata/hostile.txtar"))
	c, _ := serve(t, repo.Dir, testOptions(t))
	for _, tc := range []struct {
		name  string
		args  map[string]any
		class string
		says  string
	}{
		{"regexp bomb", map[string]any{"relation": "definition", "symbol": "(a+)+$"}, "invalid_input", "not a Go name"},
		{"regexp bomb 2", map[string]any{"relation": "definition", "symbol": "(.*a){20}"}, "invalid_input", "not a Go name"},
		{"long dotted name", map[string]any{"relation": "definition", "symbol": strings.Repeat("a.", 255) + "b"}, "not_found", "no declaration"},
		{"line past the end", map[string]any{"relation": "definition", "path": "lib/lib.go", "line": 999, "column": 1}, "invalid_input", "past the end of lib/lib.go (5 lines)"},
		{"column past the end", map[string]any{"relation": "definition", "path": "lib/lib.go", "line": 3, "column": 200}, "invalid_input", "column 200 is past the end of line 3"},
		{"not an identifier", map[string]any{"relation": "definition", "path": "lib/lib.go", "line": 2, "column": 1}, "not_found", "no identifier"},
		{"not a Go file", map[string]any{"relation": "definition", "path": "go.mod", "line": 1, "column": 1}, "invalid_input", "not a Go file"},
		{"escaping path", map[string]any{"relation": "definition", "path": "../x.go", "line": 1, "column": 1}, "invalid_input", ""},
		{"both symbol and position", map[string]any{"relation": "definition", "symbol": "lib.Total", "path": "lib/lib.go", "line": 3, "column": 6}, "invalid_input", "not both"},
		{"callers of a type", map[string]any{"relation": "callers", "symbol": "cgo"}, "invalid_input", "needs a function"},
		{"package_api of a func", map[string]any{"relation": "package_api", "symbol": "lib.Total"}, "invalid_input", "needs a package"},
		{"worktree", map[string]any{"relation": "definition", "symbol": "lib.Total", "revision": "worktree"}, "invalid_input", "committed revisions"},
		{"foreign cursor", map[string]any{"relation": "references", "symbol": "lib.Total", "cursor": "0123456789abcdef.1"}, "invalid_input", "does not continue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := navigateRaw(t, c, tc.args)
			if res.ErrorClass() != tc.class || !strings.Contains(res.Text, tc.says) {
				t.Errorf("%s: %s", res.ErrorClass(), res.Text)
			}
		})
	}
}

// kinds maps each result's file:line:column to its kind.
func kinds(out GoNavigateOut) map[string]string {
	m := map[string]string{}
	for _, r := range out.Results {
		m[locString(r)] = r.Kind
	}
	return m
}

func locString(r Location) string {
	return r.File + ":" + itoa(r.Line) + ":" + itoa(r.Column)
}

// TestReplaceOutsideExport: go list must not read outside the export, so
// a module that replaces a dependency with a directory outside it is not
// listed; every directory is then checked alone, and the result says so.
func TestReplaceOutsideExport(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/hostile.txtar")
	files["go.mod"] = gitfixture.Text("module example.com/hostile\n\ngo 1.22\n\nrequire example.com/x v0.0.0\n\nreplace example.com/x => ../outside\n")
	repo.Commit(t, "replace", files)
	c, _ := serve(t, repo.Dir, testOptions(t))
	out := navigate(t, c, map[string]any{"relation": "references", "symbol": "lib.Total"})
	if out.Precision.Mode != "syntactic" || !strings.Contains(out.Precision.Reason, "outside the export") {
		t.Errorf("precision %+v, want syntactic, saying why", out.Precision)
	}
	got := kinds(out)
	if got["lib/lib.go:5:28"] != "reference" || got["ghost/ghost.go:8:29"] != "syntactic_reference" {
		t.Errorf("references of lib.Total without go list: %v", got)
	}
}

// TestOversizedFile leaves a 50 MiB generated file out of its package,
// says so, and answers about the package's other files.
func TestOversizedFile(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/hostile.txtar")
	// Built by doubling, not line by line: under the race detector a
	// loop of 700,000 writes took most of the test's time.
	const row = "\t1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,\n"
	big := "// Code generated by a test. DO NOT EDIT.\n\npackage lib\n\nvar Table = []int{\n" + strings.Repeat(row, 50<<20/len(row)+1) + "}\n"
	repo.Commit(t, "hostile", files)
	commitBig(t, repo.Dir, "lib/table_gen.go", big)
	c, _ := serve(t, repo.Dir, testOptions(t))
	out := navigate(t, c, map[string]any{"relation": "callers", "symbol": "lib.Total"})
	if kinds(out)["lib/lib.go:5:28"] != "call" {
		t.Errorf("callers of lib.Total: %v", kinds(out))
	}
	var why string
	for _, f := range out.Precision.Failed {
		if f.Package == "example.com/hostile/lib" {
			why = strings.Join(f.Problems, "; ")
		}
	}
	if !strings.Contains(why, "lib/table_gen.go is 52") || !strings.Contains(why, "left out") {
		t.Errorf("lib's problems: %q", why)
	}
}

// commitBig commits a file on top of the repository's HEAD with the git
// binary: gitfixture compresses a blob in the test's process, which took
// most of TestOversizedFile's minutes under the race detector.
func commitBig(t *testing.T, dir, path, content string) {
	git := func(in string, args ...string) string {
		return strings.TrimSpace(gitfixture.GitInput(t, dir, strings.NewReader(in), args...))
	}
	blob := git(content, "hash-object", "-w", "--stdin")
	git("", "read-tree", "HEAD")
	git("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+path)
	commit := git("", "commit-tree", git("", "write-tree"), "-p", "HEAD", "-m", "big")
	git("", "update-ref", "HEAD", commit)
}
