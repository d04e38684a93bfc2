package gonav

import (
	"go/token"
	"go/types"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestSecondRevision loads a revision, then one that changes a file no
// other package imports: only that package is checked again.
func TestSecondRevision(t *testing.T) {
	repo, first, second := twoRevisions(t)
	c, sv := serve(t, repo.Dir, testOptions(t))
	holdBackground(sv)

	out1 := navigate(t, c, map[string]any{"relation": "definition", "symbol": "shape.Total", "revision": first})
	if got, want := out1.Precision.Load.Checked, settled(sv.progs[0].prog); got != want || got == 0 {
		t.Errorf("first load checked %d of the %d packages it loaded (%d listed)", got, want, out1.Precision.Load.Packages)
	}
	out2 := navigate(t, c, map[string]any{"relation": "definition", "symbol": "circle.Unit", "revision": second})
	if got := out2.Precision.Load.Checked; got != 1 {
		t.Errorf("second revision checked %d packages, want 1 (circle); %d loaded", got, out2.Precision.Load.Packages)
	}
	if len(out2.Results) != 1 || out2.Results[0].File != "circle/circle.go" {
		t.Errorf("circle.Unit at the second revision: %+v", out2.Results)
	}
	// The second export linked the files the first one wrote.
	if n := linkedFiles(t, sv.dir); n == 0 {
		t.Error("the second export linked none of the first one's files")
	}
	// The first revision is still answered as it was.
	if res := navigateRaw(t, c, map[string]any{"relation": "definition", "symbol": "circle.Unit", "revision": first}); res.ErrorClass() != "not_found" {
		t.Errorf("circle.Unit at the first revision: %s %s", res.ErrorClass(), res.Text)
	}
	// A loaded revision answers without loading again.
	if out := navigate(t, c, map[string]any{"relation": "definition", "symbol": "shape.Total", "revision": first}); out.Precision.Load.DurationMS != 0 {
		t.Errorf("the first revision was loaded again: %+v", out.Precision.Load)
	}
}

// twoRevisions commits nav.txtar, then a second revision that adds
// circle.Unit to a file no other package imports.
func twoRevisions(t *testing.T) (repo *gitfixture.Repo, first, second string) {
	repo = gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	first = repo.Commit(t, "first", files)
	files["circle/circle.go"] = gitfixture.Text(files["circle/circle.go"].Content + "\nfunc Unit() Circle { return Circle{R: 1} }\n")
	second = repo.Commit(t, "second", files)
	return repo, first, second
}

// TestConcurrentFirstCalls loads a revision once for calls that ask for
// it at the same time.
func TestConcurrentFirstCalls(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	c, sv := serve(t, repo.Dir, testOptions(t))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			out := navigate(t, c, map[string]any{"relation": "references", "symbol": "shape.Total"})
			if out.Total == 0 {
				t.Errorf("no references")
			}
		})
	}
	wg.Wait()
	if sv.loads != 1 {
		t.Errorf("%d loads for 4 concurrent first calls, want 1", sv.loads)
	}
}

// TestProgress reports the load to a client that asked for progress.
func TestProgress(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	c, _ := serve(t, repo.Dir, testOptions(t))
	res, progress := c.CallProgress("go_navigate", map[string]any{"workspace_id": "w", "relation": "definition", "symbol": "shape.Total"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	var msgs []string
	for _, p := range progress {
		msgs = append(msgs, p.Message)
	}
	if !strings.Contains(strings.Join(msgs, "\n"), "type-checking packages") {
		t.Errorf("progress messages: %q", msgs)
	}
}

// TestPolicyHidesPaths: a caller whose policy hides a directory gets an
// export without it, and no result names it.
func TestPolicyHidesPaths(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	c, _ := serve(t, repo.Dir, testOptions(t), "go.mod", "shape/**", "square/**", "broken/**")
	out := navigate(t, c, map[string]any{"relation": "implementations", "symbol": "shape.Shape"})
	for _, r := range out.Results {
		if strings.HasPrefix(r.File, "circle/") {
			t.Errorf("a hidden file is named: %+v", r)
		}
	}
	if len(out.Results) == 0 {
		t.Error("no implementations at all")
	}
}

// TestEarlyCutoff changes shape, which every other package imports: an
// edit that leaves its API as it was checks shape alone again, and the
// importers' units, checked against the earlier shape, still answer
// references to declarations the edit moved within their lines; an edit
// of the API checks the importers again.
func TestEarlyCutoff(t *testing.T) {
	const body = "\t\tsum += s.Area()\n"
	tests := []struct {
		name     string
		old, new string
		cutoff   bool
	}{
		{"body only", body, "\t\tsum += s.Area() * 1\n", true},
		{"a line added in a body: the declarations below move", body, body + "\t\tsum += 0\n", false},
		{"a parameter's column moves", "(a, b T) T {", "(a,  b T) T {", false},
		{"exported function added", "// Max returns", "func Min() int { return 0 }\n\n// Max returns", false},
		{"unexported function at the end", "\treturn b\n}\n", "\treturn b\n}\n\nfunc half(x float64) float64 { return x / 2 }\n", true},
		{"unexported type at the end", "\treturn b\n}\n", "\treturn b\n}\n\ntype unit struct{ w float64 }\n\nfunc (u unit) Area() float64 { return u.w }\n", true},
	}
	// One service answers every case, each a revision on top of the
	// first: a case's importers are checked again or not by their keys,
	// whatever was loaded before (and the race detector's run of the
	// package is shorter by four loads).
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	first := repo.Commit(t, "first", files)
	src := files["shape/shape.go"].Content
	c, _ := serve(t, repo.Dir, testOptions(t))
	want := navigate(t, c, map[string]any{"relation": "references", "symbol": "shape.Max", "revision": first})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("shape.go has no %q", tc.old)
			}
			files["shape/shape.go"] = gitfixture.Text(strings.Replace(src, tc.old, tc.new, 1))
			second := repo.Commit(t, tc.name, files)
			got := navigate(t, c, map[string]any{"relation": "references", "symbol": "shape.Max", "revision": second})
			if checked := got.Precision.Load.Checked; (checked == 1) != tc.cutoff {
				t.Errorf("the second revision checked %d of %d packages; cutoff %t", checked, got.Precision.Load.Packages, tc.cutoff)
			}
			if got.Precision.FailedTotal != want.Precision.FailedTotal {
				t.Errorf("%d packages failed at the second revision, %d at the first: %+v", got.Precision.FailedTotal, want.Precision.FailedTotal, got.Precision.Failed)
			}
			if len(got.Results) != len(want.Results) || len(got.Results) < 2 {
				t.Fatalf("references of shape.Max: %d at the second revision, %d at the first:\n%+v", len(got.Results), len(want.Results), got.Results)
			}
			for i, r := range got.Results {
				if w := want.Results[i]; r.File != w.File || r.Column != w.Column || (r.File != "shape/shape.go" && r.Line != w.Line) {
					t.Errorf("reference %d: %s:%d:%d, was %s:%d:%d", i, r.File, r.Line, r.Column, w.File, w.Line, w.Column)
				}
			}
		})
	}
}

// TestExplicitInstantiation: the index finds a call that instantiates
// a generic function explicitly (shape.Max[float64](...)) as well as an
// inferred one, without the types of every expression (calleeOf).
func TestExplicitInstantiation(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	files["circle/bigger.go"] = gitfixture.Text("package circle\n\nimport \"example.com/nav/shape\"\n\nfunc Bigger(a []float64) float64 { return shape.Max[float64](a[0], 1) }\n")
	repo.Commit(t, "nav", files)
	c, _ := serve(t, repo.Dir, testOptions(t))
	out := navigate(t, c, map[string]any{"relation": "callers", "symbol": "shape.Max"})
	var callers []string
	for _, r := range out.Results {
		callers = append(callers, r.Name)
	}
	want := []string{"example.com/nav/circle.Bigger", "example.com/nav/square.Both"}
	if !slices.Equal(callers, want) {
		t.Errorf("callers of shape.Max: %q, want %q", callers, want)
	}
}

// TestTypesOnDisk: a second service on the same cache directory, as a
// new process or another replica would be, reads every package from
// disk, the repository's with their indexes, checks none, and answers as
// the first did, dependencies' lines and columns included.
func TestTypesOnDisk(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	opts := testOptions(t)
	queries := []map[string]any{
		{"relation": "definition", "symbol": "testing.T"},
		{"relation": "definition", "symbol": "testing.TB.Helper"},
		{"relation": "definition", "symbol": "testing.B.Run"},
		{"relation": "implementations", "symbol": "testing.TB"},
		{"relation": "implementations", "symbol": "fmt.Stringer"},
		{"relation": "references", "symbol": "shape.Total"},
		{"relation": "callers", "symbol": "square.Square.Area"},
	}
	var answers [2][]GoNavigateOut
	var services [2]*Service
	loadedFirst := 0
	for i := range services {
		c, sv := serve(t, repo.Dir, opts)
		services[i] = sv
		release := holdBackgroundUntil(sv)
		for j, q := range queries {
			answers[i] = append(answers[i], navigate(t, c, q))
			if j == 0 && i == 0 {
				loadedFirst = settled(sv.progs[0].prog)
			}
			release()
		}
		sv.loader.store.wait()
	}
	first, second := answers[0][0].Precision.Load, answers[1][0].Precision.Load
	if first.Checked != loadedFirst || first.Checked == 0 {
		t.Errorf("the first service checked %d of the %d packages it loaded (%d listed)", first.Checked, loadedFirst, first.Packages)
	}
	if second.Checked != 0 {
		t.Errorf("the second service checked %d of %d packages, want none", second.Checked, second.Packages)
	}
	for i, q := range queries {
		a, b := answers[0][i], answers[1][i]
		a.Precision.Load, b.Precision.Load = LoadFacts{}, LoadFacts{}
		if len(a.Results) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%v: the second service answered\n%+v\nthe first\n%+v", q, b, a)
		}
	}
}

// TestListingReused: a revision that changes no file's imports, package
// clause or directives is not listed again; one that does is.
func TestListingReused(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(files map[string]gitfixture.File)
		listed int
	}{
		{"a body", func(files map[string]gitfixture.File) {
			files["circle/circle.go"] = gitfixture.Text(strings.Replace(files["circle/circle.go"].Content, "3 * c.R", "3.0 * c.R", 1))
		}, 0},
		{"an import", func(files map[string]gitfixture.File) {
			files["circle/circle.go"] = gitfixture.Text(strings.Replace(files["circle/circle.go"].Content, `import "example.com/nav/shape"`, "import (\n\t\"example.com/nav/shape\"\n\t_ \"example.com/nav/square\"\n)", 1))
		}, 1},
		{"an embed directive", func(files map[string]gitfixture.File) {
			files["circle/circle.go"] = gitfixture.Text(files["circle/circle.go"].Content + "\n//go:embed nothing.txt\nvar nothing string\n")
		}, 1},
		{"a file", func(files map[string]gitfixture.File) { files["circle/README"] = gitfixture.Text("circles\n") }, 1},
	}
	// One service answers every case, each a revision on top of the
	// first, whose listing it keeps (see EarlyCutoff).
	repo := gitfixture.New(t)
	base := txtarFiles(t, "testdata/nav.txtar")
	first := repo.Commit(t, "first", base)
	c, sv := serve(t, repo.Dir, testOptions(t))
	navigate(t, c, map[string]any{"relation": "definition", "symbol": "circle.Circle", "revision": first})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := maps.Clone(base)
			tc.edit(files)
			second := repo.Commit(t, tc.name, files)
			runs := sv.lists.runs
			out := navigate(t, c, map[string]any{"relation": "definition", "symbol": "circle.Circle", "revision": second})
			if got := sv.lists.runs - runs; got != tc.listed {
				t.Errorf("go list ran %d times, want %d", got, tc.listed)
			}
			if len(out.Results) != 1 || out.Results[0].File != "circle/circle.go" {
				t.Errorf("circle.Circle at the second revision: %+v", out.Results)
			}
		})
	}
}

// TestIndexOnDisk: a second service on the same cache directory answers
// from the repository packages' indexes on disk, checking none of them,
// neither to load nor to answer about what the packages declare at
// package level; a local variable, which only a check can give as an
// object, has its package checked again, that one alone, once.
func TestIndexOnDisk(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	files["shape/twice.go"] = gitfixture.Text("package shape\n\nconst factor = 2\n\nvar calls int\n\nfunc double(x float64) float64 { calls++; return factor * x }\n\n// Twice doubles an area.\nfunc Twice(s Shape) float64 { return double(s.Area()) }\n")
	// square has tests: its test variant is the unit with the index, and
	// the package's own entry leaves its unexported names out.
	files["square/half.go"] = gitfixture.Text("package square\n\nvar halves int\n\nfunc half(s Square) Square { halves++; return Square{Side: s.Side / 2} }\n\n// Quarter is a quarter of a square.\nfunc Quarter(s Square) Square { return half(half(s)) }\n")
	repo.Commit(t, "nav", files)
	opts := testOptions(t)
	c1, sv1 := serve(t, repo.Dir, opts)
	navigate(t, c1, map[string]any{"relation": "definition", "symbol": "shape.Shape"})
	sv1.loader.store.wait()
	c2, sv := serve(t, repo.Dir, opts)
	queries := []map[string]any{
		{"relation": "references", "symbol": "shape.Shape.Area"},
		{"relation": "definition", "path": "square/square.go", "line": 19, "column": 15},
		{"relation": "callers", "symbol": "shape.Total", "depth": 2},
		{"relation": "callees", "symbol": "square.Both"},
		{"relation": "implementations", "symbol": "square.Square"},
		{"relation": "package_api", "symbol": "square"},
		// What export data leaves out: unexported functions, variables
		// and constants (hiddenDecls).
		{"relation": "callers", "symbol": "shape.double"},
		{"relation": "callees", "symbol": "shape.Twice"},
		{"relation": "references", "symbol": "shape.double"},
		{"relation": "references", "symbol": "shape.calls"},
		{"relation": "definition", "symbol": "shape.factor"},
		{"relation": "definition", "path": "shape/twice.go", "line": 10, "column": 38},
		{"relation": "callers", "symbol": "square.half"},
		{"relation": "references", "symbol": "square.halves"},
		{"relation": "definition", "path": "square/half.go", "line": 8, "column": 45},
	}
	local := map[string]any{"relation": "references", "path": "shape/shape.go", "line": 17, "column": 6}
	for i, q := range append(queries, local) {
		a, b := navigate(t, c1, q), navigate(t, c2, q)
		a.Precision.Load, b.Precision.Load = LoadFacts{}, LoadFacts{}
		if len(b.Results) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%v: the second service answered\n%+v\nthe first\n%+v", q, b, a)
		}
		prog := sv.progs[0].prog
		want := 0
		if i == len(queries) {
			want = 1 // the local variable's package
		}
		if prog.checked != 0 || rechecked(prog) != want {
			t.Errorf("%v: the second service checked %d packages to load and %d to answer, want 0 and %d", q, prog.checked, rechecked(prog), want)
		}
	}
}

// rechecked counts the units read from disk that were checked again.
func rechecked(p *program) int {
	n := 0
	for _, u := range p.localUnits() {
		if ix, _ := u.indexReady(); ix != nil {
			ix.mu.Lock()
			if ix.checked {
				n++
			}
			ix.mu.Unlock()
		}
	}
	return n
}

// TestChecksDropped loads a revision and asks what needs its package
// level objects, then looks at what the program keeps: every package's
// types are read back from export data, whose package scope has no
// file scopes under it, as a check's has; the objects its indexes found
// are theirs. A check's objects would keep its every scope, and so the
// check, alive.
func TestChecksDropped(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	c, sv := serve(t, repo.Dir, testOptions(t))
	for _, q := range []map[string]any{
		{"relation": "references", "symbol": "shape.Shape.Area"},
		{"relation": "callers", "symbol": "shape.Total", "depth": 2},
		{"relation": "implementations", "symbol": "shape.Shape"},
	} {
		navigate(t, c, q)
	}
	prog := sv.progs[0].prog
	if prog.checked == 0 {
		t.Fatal("nothing was checked")
	}
	// The file set keeps the files export data was read from, and the
	// parsed files of the units with an index, which names offsets in
	// them; not the others' syntax.
	kept := map[*token.File]bool{}
	for _, u := range prog.allUnits() {
		if ix, _ := u.indexReady(); ix != nil {
			for _, f := range ix.Files {
				kept[f.tf] = true
			}
		}
	}
	prog.fset.Iterate(func(f *token.File) bool {
		if !kept[f] && prog.tables.m[f] == nil {
			t.Errorf("the file set keeps %s, parsed for a unit without an index", f.Name())
		}
		return true
	})
	fromCheck := func(p *types.Package) bool { return p != nil && p.Scope().NumChildren() > 0 }
	for _, u := range prog.allUnits() {
		if fromCheck(u.types()) {
			t.Errorf("%s: the program keeps the check's types", u.id)
		}
		ix, _ := u.indexReady()
		if ix == nil || ix.checked {
			continue
		}
		for _, r := range ix.Objects {
			if r.obj != nil && fromCheck(r.obj.Pkg()) {
				t.Errorf("%s: the index keeps the check's object %s", u.id, r.Key)
			}
		}
	}
}
