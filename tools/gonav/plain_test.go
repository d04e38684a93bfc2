package gonav

import (
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// plainRepo commits testsFixture with three packages without tests: c
// calls a.Target, delta and zed have nothing to do with a, and zed
// declares Alone as other does; and iface, whose Doer impl's tests
// implement and call (impl [impl.test] declares Helper, impl_test
// [impl.test] calls its Do), impl itself being needed by none of them.
func plainRepo(t *testing.T) *gitfixture.Repo {
	files := txtarText(t, testsFixture)
	files["c/c.go"] = gitfixture.Text("package c\n\nimport \"example.com/m/a\"\n\n// C calls a.Target.\nfunc C() int { return a.Target() }\n")
	files["delta/delta.go"] = gitfixture.Text("// Package delta has nothing to do with a.\npackage delta\n\n// Delta is four.\nfunc Delta() int { return 4 }\n")
	files["zed/zed.go"] = gitfixture.Text("// Package zed declares Alone too.\npackage zed\n\n// Alone is three.\nfunc Alone() int { return 3 }\n")
	files["iface/iface.go"] = gitfixture.Text("// Package iface declares Doer.\npackage iface\n\n// Doer does.\ntype Doer interface{ Do() int }\n")
	files["impl/impl.go"] = gitfixture.Text("// Package impl implements iface's Doer in its tests.\npackage impl\n\n// Zero is zero.\nfunc Zero() int { return 0 }\n")
	files["impl/export_test.go"] = gitfixture.Text("package impl\n\nimport \"example.com/m/iface\"\n\n// Helper is a Doer.\ntype Helper struct{}\n\nfunc (Helper) Do() int { return Zero() }\n\nvar _ iface.Doer = Helper{}\n")
	files["impl/use_test.go"] = gitfixture.Text("package impl_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/impl\"\n)\n\nfunc TestHelper(t *testing.T) { _ = impl.Helper{}.Do() }\n")
	repo := gitfixture.New(t)
	repo.Commit(t, "plain", files)
	return repo
}

// TestFirstReferencesReadDeferredPlainPackages: a first references
// query checks the packages whose files name the target, with their
// dependencies, plain packages as test variants, and no others, and
// answers with their references, one in a package without tests
// included, as the whole program does.
func TestFirstReferencesReadDeferredPlainPackages(t *testing.T) {
	repo := plainRepo(t)
	c, sv := serve(t, repo.Dir, testOptions(t))
	holdBackground(sv)
	q := map[string]any{"relation": References, "symbol": "a.Target"}
	out := navigate(t, c, q)
	found := false
	for _, r := range out.Results {
		found = found || r.File == "c/c.go"
	}
	if !found {
		t.Errorf("references of a.Target: none in c/c.go:\n%s", renderOut(out))
	}
	p := sv.progs[0].prog
	for id, want := range map[string]bool{
		"example.com/m/a":     true, // b's dependency
		"example.com/m/c":     true, // names a.Target
		"example.com/m/delta": false,
		"example.com/m/zed":   false,
		"example.com/m/other": false, // a package with tests
	} {
		if got := checkedNode(t, p, id); got != want {
			t.Errorf("%s checked %t after the first answer, want %t", id, got, want)
		}
	}
	sameAnswer(t, q, out, wholeAnswer(t, repo, q))
}

// TestNarrowFirstQueriesAnswerAsTheWholeProgram: each query, the first
// of a new service whose background build is held, answers as on the
// whole program, though its load checked few packages: a package named
// by its path or name (package_api, a member of it, a dependency's
// member that no repository file spells), an import's name
// at a position (the package, and its test variant, which the position
// does not need), an ambiguous name's candidates in go list's order
// (zed comes after other, whose test variant comes after zed), a
// related method's use in a package other than its type's, which is a
// test variant whose package the query does not need (impl).
func TestNarrowFirstQueriesAnswerAsTheWholeProgram(t *testing.T) {
	repo := plainRepo(t)
	for _, q := range []map[string]any{
		{"relation": PackageAPI, "symbol": "other"},
		{"relation": PackageAPI, "symbol": "example.com/m/delta"},
		{"relation": Definition, "symbol": "delta.Delta"},
		{"relation": Definition, "path": "c/c.go", "line": 6, "column": 23},
		{"relation": References, "path": "c/c.go", "line": 6, "column": 23},
		{"relation": Definition, "symbol": "Alone"},
		{"relation": References, "symbol": "example.com/m/other"},
		{"relation": References, "symbol": "iface.Doer.Do"},
		{"relation": Definition, "symbol": "strings.Builder"}, // testing's dependency
	} {
		c, sv := serve(t, repo.Dir, testOptions(t))
		holdBackground(sv)
		out := navigate(t, c, q)
		if sv.progs[0].prog.complete() {
			t.Errorf("%v checked every package: nothing is deferred", q)
		}
		sameAnswer(t, q, out, wholeAnswer(t, repo, q))
	}
}

// TestQueriesSeeUnitsCheckedButNotPublished: the background build has
// checked packages but not yet made them the program's when a query
// asks for them: the query finds them all the same.
func TestQueriesSeeUnitsCheckedButNotPublished(t *testing.T) {
	repo := plainRepo(t)
	c, sv := serve(t, repo.Dir, testOptions(t))
	holdBackground(sv)
	navigate(t, c, map[string]any{"relation": Definition, "symbol": "delta.Delta"})
	p := sv.progs[0].prog
	// What checkRest does, but for publishing the units.
	ld := *p.lazy.l
	if _, err := ld.run(t.Context(), p.lazy.closure(everything), p.lazy); err != nil {
		t.Fatal(err)
	}
	if !p.complete() || p.unitByID("example.com/m/c") != nil {
		t.Fatal("the program should have every package checked and few published")
	}
	q := map[string]any{"relation": References, "symbol": "a.Target"}
	sameAnswer(t, q, navigate(t, c, q), wholeAnswer(t, repo, q))
}
