package gonav

import (
	"bytes"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

// TestQueriesIndexWhatTheyRead: a revision's first queries build the
// indexes of the packages they read, and no others, until the first
// answer starts the background build of the rest; their answers are
// those of a program with every index built. A package's entry, which
// holds its index, is written once it is built, not before. Queries at
// once build a package's index once (-race sees the rest).
func TestQueriesIndexWhatTheyRead(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	c, sv := serve(t, repo.Dir, testOptions(t))
	release := holdBackgroundUntil(sv)
	// A definition of a symbol reads no index: the load indexes none
	// (indexHint).
	navigate(t, c, map[string]any{"relation": "definition", "symbol": "shape.Total"})
	queries := []map[string]any{
		{"relation": "references", "symbol": "square.Both"},
		{"relation": "references", "symbol": "square"},
		{"relation": "definition", "path": "circle/circle.go", "line": 1, "column": 9},
	}
	first := make([]GoNavigateOut, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Go(func() { first[i] = navigate(t, c, q) })
	}
	wg.Wait()

	prog := sv.progs[0].prog
	sv.loader.store.pending.Wait() // the entries given to saveLater
	stored := func(u *unit) bool {
		_, err := os.Stat(sv.loader.store.path(u.key))
		return err == nil
	}
	var built, left int
	for _, u := range prog.localUnits() {
		if !u.indexed {
			continue
		}
		_, ready := u.indexReady()
		if stored(u) != ready {
			t.Errorf("%s: entry written %t, index built %t", u.id, stored(u), ready)
		}
		read := u.fileNames[0] == "circle/circle.go" || mentions(t, prog, u.fileNames, "Both") || mentions(t, prog, u.fileNames, `"example.com/nav/square"`)
		switch {
		case ready && !read:
			t.Errorf("%s is indexed, but no query reads it", u.id)
		case !ready && read:
			t.Errorf("%s is not indexed, but a query reads it", u.id)
		case ready:
			built++
		default:
			left++
		}
	}
	if built == 0 || left == 0 {
		t.Fatalf("%d packages indexed, %d not: the queries should read some and not others", built, left)
	}

	release()
	sv.loader.store.wait()
	for _, u := range prog.localUnits() {
		if _, ready := u.indexReady(); u.indexed && (!ready || !stored(u)) {
			t.Errorf("%s after the background build: indexed %t, entry written %t", u.id, ready, stored(u))
		}
	}
	for i, q := range queries {
		again := navigate(t, c, q)
		first[i].Precision.Load, again.Precision.Load = LoadFacts{}, LoadFacts{}
		if !reflect.DeepEqual(first[i], again) {
			t.Errorf("%v: first\n%+v\nwith every index built\n%+v", q, renderOut(first[i]), renderOut(again))
		}
	}
}

// mentions reports whether one of files holds word.
func mentions(t *testing.T, p *program, files []string, word string) bool {
	for _, name := range files {
		data, err := p.roots.readFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(word)) {
			return true
		}
	}
	return false
}

// TestLoadIndexesWhatTheFirstQueryReads: the query that starts a load
// has the packages it will read indexed as they are checked (indexHint),
// and none checked again for it; the others are left to later queries.
func TestLoadIndexesWhatTheFirstQueryReads(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	c, sv := serve(t, repo.Dir, testOptions(t))
	holdBackground(sv)
	var checks strings.Builder
	sv.loader.log = slog.New(slog.NewTextHandler(&checks, &slog.HandlerOptions{Level: slog.LevelDebug}))
	out := navigate(t, c, map[string]any{"relation": "references", "symbol": "shape.Total"})
	if out.Total == 0 {
		t.Fatal("no references of shape.Total")
	}
	prog := sv.progs[0].prog
	var built, left int
	for _, n := range prog.lazy.local {
		if !n.full {
			continue
		}
		ready := false
		if n.checked() {
			_, ready = n.unit.indexReady()
		}
		if read := mentions(t, prog, n.names, "Total"); read != ready {
			t.Errorf("%s: holds the name %t, indexed %t", n.lp.ImportPath, read, ready)
		}
		if ready {
			built++
		} else {
			left++
		}
	}
	if built == 0 || left == 0 {
		t.Fatalf("%d packages indexed, %d not: the query should read some and not others", built, left)
	}
	if strings.Contains(checks.String(), "checking a package's function bodies for its index") {
		t.Errorf("a package was checked again for the first query:\n%s", checks.String())
	}
}

// TestBodyErrorsOfPackagesReadLater: a package whose function body does
// not type-check (broken) is checked for its declarations only by a load
// whose first query needs every package but does not read it, and that
// answer does not list it;
// a later query that reads it lists its body's type error: in the
// process that checked it, in a new process on the same cache directory
// that finds no entry of it (none is written before its index is
// built), and in one that reads the entry written with its index.
func TestBodyErrorsOfPackagesReadLater(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	opts := testOptions(t)
	const bodyError = `cannot use "not an int"`
	// Implementations checks every package, reading the indexes of the
	// target's package only.
	unread := map[string]any{"relation": "implementations", "symbol": "square.Square"}
	read := map[string]any{"relation": "references", "symbol": "shape.Total"}
	start := func() (*servertest.Client, *Service) {
		c, sv := serve(t, repo.Dir, opts)
		holdBackground(sv)
		return c, sv
	}

	c, sv := start()
	if why := brokenProblems(navigate(t, c, unread)); why != "" {
		t.Errorf("a query that does not read broken lists it: %q", why)
	}
	broken := unitNamed(t, sv.progs[0].prog, "example.com/nav/broken")
	if _, ready := broken.indexReady(); ready {
		t.Fatal("broken is indexed, but the first query does not read it")
	}
	sv.loader.store.pending.Wait()
	entry := sv.loader.store.path(broken.key)
	if _, err := os.Stat(entry); err == nil {
		t.Fatal("broken's entry is written before its function bodies are checked")
	}

	c2, sv2 := start()
	fresh := brokenProblems(navigate(t, c2, read))
	if !strings.Contains(fresh, bodyError) {
		t.Errorf("a new process reading broken: %q, want its body's type error", fresh)
	}
	// The new process checked broken in full as it loaded, and wrote its
	// entry: the entry the last process reads is to be the first one's.
	sv2.loader.store.pending.Wait()
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	if got := brokenProblems(navigate(t, c, read)); got != fresh {
		t.Errorf("the first process, reading broken later: %q, want %q", got, fresh)
	}
	sv.loader.store.pending.Wait()
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("broken's entry, once indexed: %v", err)
	}

	c3, _ := start()
	if got := brokenProblems(navigate(t, c3, read)); got != fresh {
		t.Errorf("a process reading broken's entry: %q, want %q", got, fresh)
	}
}

// brokenProblems returns what a result says of the fixture's broken
// package, "" when it does not list it.
func brokenProblems(out GoNavigateOut) string {
	for _, f := range out.Precision.Failed {
		if f.Package == "example.com/nav/broken" {
			return strings.Join(f.Problems, "; ")
		}
	}
	return ""
}

// unitNamed returns a program's unit of a go list identifier.
func unitNamed(t *testing.T, p *program, id string) *unit {
	t.Helper()
	u := p.unitByID(id)
	if u == nil {
		t.Fatalf("no package %s", id)
	}
	return u
}
