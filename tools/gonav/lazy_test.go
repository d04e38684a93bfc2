package gonav

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
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
	release := make(chan struct{})
	sv.beforeIndexRest = func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
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
	for _, u := range prog.local {
		if !u.indexed {
			continue
		}
		_, ready := u.indexReady()
		if stored(u) != ready {
			t.Errorf("%s: entry written %t, index built %t", u.id, stored(u), ready)
		}
		read := u.fileNames[0] == "circle/circle.go" || mentions(t, prog, u, "Both") || mentions(t, prog, u, `"example.com/nav/square"`)
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

	close(release)
	sv.loader.store.wait()
	for _, u := range prog.local {
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

// mentions reports whether a unit's files hold word.
func mentions(t *testing.T, p *program, u *unit, word string) bool {
	for _, name := range u.fileNames {
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
	sv.beforeIndexRest = func(ctx context.Context) { <-ctx.Done() }
	var checks strings.Builder
	sv.loader.log = slog.New(slog.NewTextHandler(&checks, &slog.HandlerOptions{Level: slog.LevelDebug}))
	out := navigate(t, c, map[string]any{"relation": "references", "symbol": "shape.Total"})
	if out.Total == 0 {
		t.Fatal("no references of shape.Total")
	}
	prog := sv.progs[0].prog
	var built, left int
	for _, u := range prog.local {
		if !u.indexed {
			continue
		}
		_, ready := u.indexReady()
		if read := mentions(t, prog, u, "Total"); read != ready {
			t.Errorf("%s: holds the name %t, indexed %t", u.id, read, ready)
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
