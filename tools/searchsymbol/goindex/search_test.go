package goindex

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// fixtureIndex returns the index of the fixture repository's commit.
func fixtureIndex(t *testing.T) *Index {
	t.Helper()
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	idx, err := NewIndexer(IndexerOptions{}).Index(context.Background(), r.source(t, commit), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// summary renders entries as "match qualified-name" strings.
func summary(entries []Entry) []string {
	var s []string
	for _, e := range entries {
		s = append(s, e.Match+" "+e.QualifiedName)
	}
	return s
}

func TestSearch(t *testing.T) {
	idx := fixtureIndex(t)
	for _, tc := range []struct {
		name  string
		q     Query
		want  []string // the first results, in order
		total int      // -1: don't check
	}{
		{"exact then fold then prefix", Query{Query: "NewReader"}, []string{
			"exact sub.NewReader", "exact inner.NewReader", "exact_fold sub.Newreader",
			"prefix sub.NewReaderSize", "prefix sub.newReaderHelper"}, 5},
		{"package qualified", Query{Query: "sub.NewReader"}, []string{
			"exact sub.NewReader", "exact_fold sub.Newreader", "prefix sub.NewReaderSize"}, -1},
		{"type qualified method", Query{Query: "Reader.Read"}, []string{"exact sub.Reader.Read"}, 1},
		{"pointer receiver form", Query{Query: "(*Server).Serve"}, []string{"exact inner.Server.Serve"}, 1},
		{"value receiver form", Query{Query: "(Reader).Read"}, []string{"exact sub.Reader.Read"}, 1},
		{"fully qualified method", Query{Query: "fix.List.Push"}, []string{"exact fix.List.Push"}, 1},
		{"field", Query{Query: "List.items"}, []string{"exact fix.List.items"}, 1},
		{"embedded field", Query{Query: "List.Embedded"}, []string{"exact fix.List.Embedded"}, 1},
		{"fuzzy", Query{Query: "srvr"}, []string{"fuzzy inner.Server"}, 1},
		{"camel initials", Query{Query: "NR"}, []string{
			"prefix sub.NRGBA", "initials sub.NewReader", "initials inner.NewReader", "initials sub.NewReaderSize"}, -1},
		{"dotted import path element", Query{Query: "example.com/fix/yaml.v3.Marshal"}, []string{"exact yaml.Marshal"}, 1},
		{"dotted path element and type", Query{Query: "fix/yaml.v3.Decoder.Decode"}, []string{"exact yaml.Decoder.Decode"}, 1},
		{"dotted path element alone", Query{Query: "yaml.v3.Marshal"}, []string{"exact yaml.Marshal"}, 1},
		{"package name for a dotted path", Query{Query: "yaml.Marshal"}, []string{"exact yaml.Marshal"}, 1},
		{"wrong dotted path element", Query{Query: "fix/yaml.v2.Marshal"}, nil, 0},
		{"package by import path", Query{Query: "example.com/fix/sub"}, []string{"exact example.com/fix/sub"}, 1},
		{"package by path suffix", Query{Query: "fix/sub"}, []string{"exact example.com/fix/sub"}, 1},
		{"package by name", Query{Query: "inner", Kinds: []string{"package"}}, []string{"exact example.com/other/inner"}, 1},
		{"generic func", Query{Query: "Map", Match: MatchExact}, []string{"exact fix.Map"}, 1},
		{"exact is case-sensitive", Query{Query: "newreader", Match: MatchExact}, nil, 0},
		{"prefix mode", Query{Query: "newread", Match: MatchPrefix}, []string{
			// One tier: exported first, then shorter names, then index order.
			"prefix sub.NewReader", "prefix sub.Newreader", "prefix inner.NewReader", "prefix sub.NewReaderSize", "prefix sub.newReaderHelper"}, 5},
		{"prefix mode, one character", Query{Query: "n", Match: MatchPrefix, Kinds: []string{"struct", "type"}}, []string{"prefix fix.Number", "prefix sub.NRGBA"}, 2},
		{"prefix mode, no name", Query{Match: MatchPrefix, Kinds: []string{"interface_method"}}, []string{"exact fix.Walker.Walk", "exact fix.Walker.step"}, 2},
		{"exact mode, no name", Query{Match: MatchExact, Kinds: []string{"interface_method"}}, []string{"exact fix.Walker.Walk", "exact fix.Walker.step"}, 2},
		{"prefix mode is not substring", Query{Query: "eader", Match: MatchPrefix}, nil, 0},
		{"substring mode is not initials", Query{Query: "nr", Match: MatchSubstring, Kinds: []string{"func"}}, nil, 0},
		{"substring mode", Query{Query: "eader", Match: MatchSubstring, Kinds: []string{"struct"}}, []string{"substring sub.Reader"}, 1},
		{"regexp mode", Query{Query: "^New.*Size$", Match: MatchRegexp}, []string{"regexp sub.NewReaderSize"}, 1},
		{"kinds: interface methods", Query{Kinds: []string{"interface_method"}}, []string{"exact fix.Walker.Walk", "exact fix.Walker.step"}, 2},
		{"exported only", Query{Kinds: []string{"interface_method"}, ExportedOnly: true}, []string{"exact fix.Walker.Walk"}, 1},
		{"kind type means every type kind", Query{Kinds: []string{"type"}, Package: "example.com/fix/sub"}, []string{"exact sub.NRGBA", "exact sub.Reader"}, 2},
		{"package prefix at a path boundary", Query{Package: "example.com/fix/su"}, nil, 0},
		{"path glob with **", Query{Path: "nested/**", Kinds: []string{"func", "method"}}, []string{"exact inner.Server.Serve", "exact inner.NewReader"}, 2},
		{"base-name glob", Query{Path: "*_test.go", IncludeTests: true, Kinds: []string{"func"}}, []string{
			"exact fix.TestPush", "exact fix_test.ExampleNewList", "exact fix.helperForTests"}, 3},
		{"tests excluded by default", Query{Query: "TestPush"}, nil, 0},
		{"tests on request", Query{Query: "TestPush", IncludeTests: true}, []string{"exact fix.TestPush"}, 1},
		{"file that does not parse", Query{Query: "Good"}, []string{"exact broken.Good"}, 1},
		{"grouped const", Query{Query: "Amber"}, []string{"exact fix.Amber"}, 1},
		{"grouped var", Query{Query: "spare"}, []string{"exact fix.spare"}, 1},
		{"alias", Query{Query: "Alias", Kinds: []string{"alias"}}, []string{"exact fix.Alias"}, 1},
		{"build-tagged file", Query{Query: "OnLinux"}, []string{"exact tagged.OnLinux"}, 1},
		{"file with a GOOS_GOARCH name", Query{Query: "OnWindows"}, []string{"exact tagged.OnWindows"}, 1},
		{"vendor excluded by default", Query{Query: "Vendored"}, nil, 0},
		{"testdata excluded by default", Query{Query: "InTestdata"}, nil, 0},
		{"init is not indexed", Query{Query: "init", Match: MatchExact}, nil, 0},
		{"regexp (a+)+$ is linear", Query{Query: "(a+)+$", Match: MatchRegexp, Kinds: []string{"alias"}}, nil, 0},
		{"(a+)+$ as a name", Query{Query: "(a+)+$"}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := idx.Search(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := summary(res.Entries)
			if len(got) > len(tc.want) && tc.want != nil {
				got = got[:len(tc.want)]
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if tc.total >= 0 && res.Total != tc.total {
				t.Errorf("total = %d, want %d (%q)", res.Total, tc.total, summary(res.Entries))
			}
		})
	}
}

func TestSearchEntryFields(t *testing.T) {
	idx := fixtureIndex(t)
	res, err := idx.Search(Query{Query: "List.Push"})
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("Search: %v, %d entries", err, len(res.Entries))
	}
	got := res.Entries[0]
	want := Entry{
		Name: "Push", QualifiedName: "fix.List.Push", Kind: KindMethod,
		Package: "example.com/fix", PackageName: "fix", Container: "*List",
		File: "fix.go", Line: 43, Column: 19, Exported: true,
		Signature: "func (l *List[T]) Push(v T)", Doc: "Push adds v.", Match: "exact",
	}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestSearchBuildConstraints(t *testing.T) {
	idx := fixtureIndex(t)
	for query, want := range map[string]string{
		"OnLinux":   "linux && !race",
		"OnWindows": "windows && amd64 && !purego",
		"List.Push": "",
	} {
		res, err := idx.Search(Query{Query: query, Match: MatchExact})
		if err != nil || len(res.Entries) != 1 {
			t.Fatalf("Search(%s): %v, %d entries", query, err, len(res.Entries))
		}
		if got := res.Entries[0].BuildConstraint; got != want {
			t.Errorf("%s: build constraint %q, want %q", query, got, want)
		}
	}
}

func TestSearchInvalidInput(t *testing.T) {
	idx := fixtureIndex(t)
	page, err := idx.Search(Query{Limit: 2})
	if err != nil || page.NextCursor == "" {
		t.Fatalf("first page: %v, cursor %q", err, page.NextCursor)
	}
	tampered := []byte(page.NextCursor)
	tampered[len(tampered)/2] ^= 1
	for _, tc := range []struct {
		name string
		q    Query
	}{
		{"10,000-byte query", Query{Query: strings.Repeat("a", 10000)}},
		{"unknown kind", Query{Kinds: []string{"func", "klass"}}},
		{"unknown match", Query{Query: "x", Match: "glob"}},
		{"bad regexp", Query{Query: "(", Match: MatchRegexp}},
		{"limit too large", Query{Limit: MaxLimit + 1}},
		{"negative limit", Query{Limit: -1}},
		{"malformed glob", Query{Path: "["}},
		{"garbage cursor", Query{Limit: 2, Cursor: "not a cursor!"}},
		{"empty-ish cursor", Query{Limit: 2, Cursor: "AA"}},
		{"tampered cursor", Query{Limit: 2, Cursor: string(tampered)}},
		{"cursor of another query", Query{Query: "x", Limit: 2, Cursor: page.NextCursor}},
		{"huge cursor", Query{Limit: 2, Cursor: strings.Repeat("A", 100000)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := idx.Search(tc.q)
			if errclass.ClassOf(err) != errclass.InvalidInput {
				t.Errorf("err = %v, want class invalid_input", err)
			}
		})
	}
}

func TestCursorOfAnotherRevision(t *testing.T) {
	r, c1 := newFixtureRepo(t, "testdata/fixture.txtar")
	c2 := r.commit(t, map[string]string{"extra/extra.go": "package extra\n\nfunc Extra() {}\n"}, "second")
	ix := NewIndexer(IndexerOptions{})
	ctx := context.Background()
	q := Query{Limit: 2}
	first, err := ix.Search(ctx, r.source(t, c1), Options{}, q)
	if err != nil {
		t.Fatal(err)
	}
	q.Cursor = first.NextCursor
	if _, err := ix.Search(ctx, r.source(t, c2), Options{}, q); errclass.ClassOf(err) != errclass.InvalidInput {
		t.Errorf("cursor of %s used at %s: err = %v, want invalid_input", c1, c2, err)
	}
	if _, err := ix.Search(ctx, r.source(t, c1), Options{}, q); err != nil {
		t.Errorf("cursor at its own revision: %v", err)
	}
}

// TestPaging walks every page and expects the same sequence as one page.
func TestPaging(t *testing.T) {
	idx := fixtureIndex(t)
	all, err := idx.Search(Query{Limit: MaxLimit, IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	if all.Truncated || all.NextCursor != "" || len(all.Entries) != all.Total {
		t.Fatalf("one page: truncated=%v cursor=%q entries=%d total=%d", all.Truncated, all.NextCursor, len(all.Entries), all.Total)
	}
	var paged []Entry
	q := Query{Limit: 7, IncludeTests: true}
	for pages := 0; ; pages++ {
		res, err := idx.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != all.Total {
			t.Fatalf("page %d: total %d, want %d", pages, res.Total, all.Total)
		}
		paged = append(paged, res.Entries...)
		if !res.Truncated {
			break
		}
		q.Cursor = res.NextCursor
	}
	if fmt.Sprint(summary(paged)) != fmt.Sprint(summary(all.Entries)) {
		t.Errorf("pages differ from one page:\n%q\n%q", summary(paged), summary(all.Entries))
	}
}

// TestMillionMatches builds a synthetic index of a million declarations
// and pages through a query that matches them all.
func TestMillionMatches(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large index")
	}
	const files, perFile = 1000, 1000
	indexed := make([]indexedFile, files)
	for i := range indexed {
		pf := &parsedFile{pkgName: "p", syms: make([]symbol, perFile)}
		for j := range pf.syms {
			pf.syms[j] = symbol{name: fmt.Sprintf("Sym%d", j), kind: KindConst, line: int32(j + 1), col: 7, sig: "const"}
		}
		indexed[i] = indexedFile{path: fmt.Sprintf("p%d/f.go", i), id: fmt.Sprint(i), importPath: fmt.Sprintf("m/p%d", i), pf: pf}
	}
	idx, err := assemble("rev", Options{}, indexed, newNameTable())
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Query: "sym", Match: MatchPrefix, Limit: MaxLimit}
	res, err := idx.Search(q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != files*perFile || len(res.Entries) != MaxLimit || !res.Truncated {
		t.Fatalf("total %d, %d entries, truncated %v", res.Total, len(res.Entries), res.Truncated)
	}
	// The last page. Ranking a million matches to reach it keeps one
	// 8-byte key per match, nothing more.
	c, _ := compileQuery(q)
	q.Cursor = idx.encodeCursor(c.print, files*perFile-10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err = idx.Search(q)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the last page allocated %d MiB", alloc>>20)
	}
	if len(res.Entries) != 10 || res.Truncated || res.NextCursor != "" {
		t.Errorf("last page: %d entries, truncated %v, cursor %q", len(res.Entries), res.Truncated, res.NextCursor)
	}
	q.Cursor = idx.encodeCursor(c.print, files*perFile+1)
	if _, err := idx.Search(q); errclass.ClassOf(err) != errclass.InvalidInput {
		t.Errorf("cursor past the end: err = %v", err)
	}
}

func TestConcurrentSearches(t *testing.T) {
	idx := fixtureIndex(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			q := []string{"NewReader", "srvr", "NR", "Reader.Read"}[i%4]
			if _, err := idx.Search(Query{Query: q}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestUnknownKindMessage(t *testing.T) {
	_, err := compileQuery(Query{Kinds: []string{"klass"}})
	var se *errclass.Error
	if !errors.As(err, &se) || !strings.Contains(se.Message, "interface_method") {
		t.Errorf("err = %v; want a message listing the known kinds", err)
	}
}
