package gonav

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// testsFixture is a module whose tests use its packages: a's own test
// and its external test reference a.Target and implement a.Doer, the
// external test imports b, which imports a (so b is recompiled for a's
// test, "b [a.test]"), and other's test has nothing to do with a.
const testsFixture = `-- go.mod --
module example.com/m

go 1.22
-- a/a.go --
// Package a declares what the queries ask about.
package a

// Doer does.
type Doer interface{ Do() int }

// Target is called from tests.
func Target() int { return 1 }
-- a/a_internal_test.go --
package a

import "testing"

type testDoer struct{}

func (testDoer) Do() int { return Target() }

func TestTarget(t *testing.T) { _ = testDoer{}.Do() }
-- a/a_ext_test.go --
package a_test

import (
	"testing"

	"example.com/m/a"
	"example.com/m/b"
)

type extDoer struct{}

func (extDoer) Do() int { return a.Target() + b.Use() }

func TestExt(t *testing.T) {
	var d a.Doer = extDoer{}
	_ = d.Do()
}
-- b/b.go --
// Package b uses a.
package b

import "example.com/m/a"

// Use calls a.Target.
func Use() int { return a.Target() }
-- b/b_test.go --
package b

import "testing"

func TestUse(t *testing.T) { _ = Use() }
-- other/other.go --
// Package other has nothing to do with a.
package other

// Alone is alone.
func Alone() int { return 2 }
-- other/other_test.go --
package other

import "testing"

func TestAlone(t *testing.T) { _ = Alone() }
`

// testsRepo commits testsFixture.
func testsRepo(t *testing.T) *gitfixture.Repo {
	repo := gitfixture.New(t)
	repo.Commit(t, "tests", txtarText(t, testsFixture))
	return repo
}

// holdBackground has the service's programs check nothing after their
// first answers until they are dropped.
func holdBackground(sv *Service) {
	sv.beforeIndexRest = func(ctx context.Context) { <-ctx.Done() }
}

// holdBackgroundUntil is holdBackground until release is called.
func holdBackgroundUntil(sv *Service) (release func()) {
	ch := make(chan struct{})
	sv.beforeIndexRest = func(ctx context.Context) {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
	return sync.OnceFunc(func() { close(ch) })
}

// settled counts the nodes a program has checked or found checked, but
// unsafe, which needs no check.
func settled(p *program) int {
	n := 0
	for _, nd := range p.lazy.order {
		if nd.checked() && nd.lp.ImportPath != "unsafe" {
			n++
		}
	}
	return n
}

// wholeAnswer is a query's answer from a new service whose first query
// is callers of a.Target, which checks every package.
func wholeAnswer(t *testing.T, repo *gitfixture.Repo, q map[string]any) GoNavigateOut {
	t.Helper()
	c, sv := serve(t, repo.Dir, testOptions(t))
	navigate(t, c, map[string]any{"relation": Callers, "symbol": "a.Target"})
	if p := sv.progs[0].prog; !p.complete() {
		t.Fatal("callers left packages unchecked")
	}
	return navigate(t, c, q)
}

// sameAnswer fails the test when two answers differ but for their load
// facts.
func sameAnswer(t *testing.T, q map[string]any, got, want GoNavigateOut) {
	t.Helper()
	got.Precision.Load, want.Precision.Load = LoadFacts{}, LoadFacts{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v:\n%s\nwith every package checked:\n%s", q, renderOut(got), renderOut(want))
	}
}

// checkedNode reports whether the program checked the package of go
// list's id.
func checkedNode(t *testing.T, p *program, id string) bool {
	t.Helper()
	n := p.lazy.nodes[id]
	if n == nil {
		t.Fatalf("go list did not report %s", id)
	}
	return n.checked()
}

// TestFirstReferencesReadDeferredVariants: a first references query
// checks the test variants whose files name the target, with their
// dependencies, and no others, and answers with their references as the
// whole program does.
func TestFirstReferencesReadDeferredVariants(t *testing.T) {
	repo := testsRepo(t)
	c, sv := serve(t, repo.Dir, testOptions(t))
	holdBackground(sv)
	q := map[string]any{"relation": References, "symbol": "a.Target"}
	out := navigate(t, c, q)
	var inTests []string
	for _, r := range out.Results {
		if r.Test {
			inTests = append(inTests, r.File)
		}
	}
	if !slices.Contains(inTests, "a/a_internal_test.go") || !slices.Contains(inTests, "a/a_ext_test.go") {
		t.Errorf("references of a.Target in test files: %q, want a/a_internal_test.go and a/a_ext_test.go", inTests)
	}
	p := sv.progs[0].prog
	for id, want := range map[string]bool{
		"example.com/m/a [example.com/m/a.test]":         true,
		"example.com/m/a_test [example.com/m/a.test]":    true,
		"example.com/m/b [example.com/m/a.test]":         true, // the external test's dependency
		"example.com/m/b [example.com/m/b.test]":         true, // b.go names a.Target
		"example.com/m/other [example.com/m/other.test]": false,
	} {
		if got := checkedNode(t, p, id); got != want {
			t.Errorf("%s checked %t after the first answer, want %t", id, got, want)
		}
	}
	sameAnswer(t, q, out, wholeAnswer(t, repo, q))
}

// TestWholeProgramQueriesAfterANarrowOne: queries that read every
// package, right after a first query that checked few, answer as on the
// whole program: no unit is missing.
func TestWholeProgramQueriesAfterANarrowOne(t *testing.T) {
	repo := testsRepo(t)
	c, sv := serve(t, repo.Dir, testOptions(t))
	holdBackground(sv)
	navigate(t, c, map[string]any{"relation": Definition, "symbol": "other.Alone"})
	if p := sv.progs[0].prog; checkedNode(t, p, "example.com/m/a_test [example.com/m/a.test]") {
		t.Fatal("a definition of other.Alone checked a's external test: nothing is left to check")
	}
	for _, q := range []map[string]any{
		{"relation": Implementations, "symbol": "a.Doer"},
		{"relation": Callers, "symbol": "a.Target", "depth": 2},
		{"relation": Definition, "path": "a/a_ext_test.go", "line": 10, "column": 6},
	} {
		sameAnswer(t, q, navigate(t, c, q), wholeAnswer(t, repo, q))
	}
}

// TestCancelledFirstCallLeavesNoHalfProgram: the call that starts a
// load gives up while another waits for the load; the other answers as
// on the whole program, though the load was started for a query that
// needs few packages.
func TestCancelledFirstCallLeavesNoHalfProgram(t *testing.T) {
	repo := testsRepo(t)
	c, sv := serve(t, repo.Dir, testOptions(t))
	holdBackground(sv)
	release := make(chan struct{})
	sv.beforeLoad = func(context.Context) { <-release }

	first := GoNavigateIn{Target: toolkit.Target{Selector: toolkit.Selector{WorkspaceID: "w"}}, Relation: Definition, Symbol: "other.Alone"}
	snap, err := sv.reg.Snapshot(t.Context(), workspace.Access{Identity: "op", Action: workspace.ActionSearch}, "w", "")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := snap.ExportKey(exportOptions())
	ctx, cancel := context.WithCancel(t.Context())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := sv.program(ctx, &server.Request{ID: "first"}, snap, key, indexHint(first), loadWants(first))
		gaveUp <- err
	}()
	q := map[string]any{"relation": Callers, "symbol": "a.Target", "depth": 2}
	answered := make(chan *servertest.Result, 1)
	go func() { answered <- navigateRaw(t, c, q) }()
	for sv.waiting.Load() < 2 { // both wait for the held load
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-gaveUp; err == nil {
		t.Fatal("the first call did not give up")
	}
	close(release)
	res := <-answered
	if res.IsError {
		t.Fatalf("%v, waiting for the load the first call started: %s", q, res.Text)
	}
	var out GoNavigateOut
	if err := json.Unmarshal(res.Structured, &out); err != nil {
		t.Fatal(err)
	}
	sameAnswer(t, q, out, wholeAnswer(t, repo, q))
}

// txtarText reads a txtar archive given as text as the files of a
// commit.
func txtarText(t *testing.T, text string) map[string]gitfixture.File {
	t.Helper()
	files := map[string]gitfixture.File{}
	for _, f := range txtar.Parse([]byte(text)).Files {
		files[f.Name] = gitfixture.Text(string(f.Data))
	}
	return files
}

// TestProblemsOfDeferredVariants: a query's precision lists every
// problem of the test variants it reads, and of the others what go list
// said, whether they are checked yet or not: the answer is the same
// before and after the background build checks them. c does not
// type-check, and is recompiled for a's test ("c [a.test]"), which the
// query does not need.
func TestProblemsOfDeferredVariants(t *testing.T) {
	files := txtarText(t, testsFixture)
	files["c/c.go"] = gitfixture.Text("package c\n\nimport \"example.com/m/a\"\n\n// Bad does not type-check.\nvar Bad int = \"not an int\"\n\n// C calls a.Target.\nfunc C() int { return a.Target() }\n")
	files["a/c_ext_test.go"] = gitfixture.Text("package a_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/c\"\n)\n\nfunc TestC(t *testing.T) { _ = c.C() }\n")
	files["other/other_test.go"] = gitfixture.Text("package other\n\nimport \"testing\"\n\nfunc TestAlone(t *testing.T) {\n\tvar n int = \"not an int\"\n\t_ = n + Alone()\n}\n")
	repo := gitfixture.New(t)
	repo.Commit(t, "tests", files)
	c, sv := serve(t, repo.Dir, testOptions(t))
	release := holdBackgroundUntil(sv)
	q := map[string]any{"relation": References, "symbol": "other.Alone"}
	first := navigate(t, c, q)
	var failed []string
	for _, f := range first.Precision.Failed {
		failed = append(failed, f.Package)
	}
	if want := []string{"example.com/m/other [example.com/m/other.test]"}; !slices.Equal(failed, want) {
		t.Errorf("failed packages %q, want %q (the variant read, with its body's error)", failed, want)
	}
	if checkedNode(t, sv.progs[0].prog, "example.com/m/c [example.com/m/a.test]") {
		t.Fatal("c [a.test] is checked, but the query does not need it")
	}
	release()
	sv.loader.store.wait()
	if !sv.progs[0].prog.complete() {
		t.Fatal("the background build left packages unchecked")
	}
	again := navigate(t, c, q)
	first.Precision.Load, again.Precision.Load = LoadFacts{}, LoadFacts{}
	if !reflect.DeepEqual(first, again) {
		t.Errorf("%v: first\n%s\nwith every package checked\n%s", q, renderOut(first), renderOut(again))
	}
}
