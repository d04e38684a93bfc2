package gonav

import (
	"context"
	"reflect"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestDroppedProgramIsFreed: a program the service drops (Programs is
// 1, and a second revision is loaded) while its background build of the
// method index is under way is freed: the build ends, and holds it no
// longer.
func TestDroppedProgramIsFreed(t *testing.T) {
	repo, first, second := twoRevisions(t)
	opts := testOptions(t)
	opts.Programs = 1
	c, sv := serve(t, repo.Dir, opts)
	started := make(chan struct{}, 2)
	sv.beforePrepare = func(ctx context.Context) {
		started <- struct{}{}
		<-ctx.Done() // a build that lasts until it is ended
	}
	navigate(t, c, map[string]any{"relation": "definition", "symbol": "shape.Total", "revision": first})
	<-started
	sv.mu.Lock()
	dropped := weak.Make(sv.progs[0].prog)
	sv.mu.Unlock()
	navigate(t, c, map[string]any{"relation": "definition", "symbol": "circle.Unit", "revision": second})
	// The build's goroutine ends once it sees its context canceled.
	for range 100 {
		if dropped.Value() == nil {
			break
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if dropped.Value() != nil {
		t.Error("the dropped program is still alive")
	}
	// The program kept answers implementations all the same: a query
	// builds what the held build did not.
	if out := navigate(t, c, map[string]any{"relation": "implementations", "symbol": "shape.Shape", "revision": second}); out.Total == 0 {
		t.Error("no implementations of shape.Shape")
	}
}

// TestLocalTypesOnDisk: types declared in a function, and their
// methods, are found in a package read from disk by checking it again;
// implementations between them and the package's own types, read from
// disk, answer as a check of the whole package does, though the two sides
// come from two checks (Unit in Measure's signature is one type to both).
func TestLocalTypesOnDisk(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	files["shape/local.go"] = gitfixture.Text(`package shape

// Unit is a unit of area.
type Unit float64

// Measurer measures in units.
type Measurer interface {
	Measure() Unit
}

// Ruler returns a measurer of its own.
func Ruler(m Measurer) Measurer {
	type ruler struct{ Measurer }
	type gauge interface {
		Measure() Unit
		Zero() Unit
	}
	var g gauge
	var lit interface{ Measure() Unit } = g
	_ = lit.Measure() + g.Measure()
	return ruler{m}
}
`)
	repo.Commit(t, "nav", files)
	opts := testOptions(t)
	c1, sv1 := serve(t, repo.Dir, opts)
	navigate(t, c1, map[string]any{"relation": "definition", "symbol": "shape.Shape"})
	sv1.loader.store.wait()
	c2, _ := serve(t, repo.Dir, opts)
	for _, q := range []map[string]any{
		{"relation": "implementations", "symbol": "shape.Measurer"},
		{"relation": "implementations", "symbol": "shape.Measurer.Measure"},
		{"relation": "references", "symbol": "shape.Measurer.Measure"},
		{"relation": "implementations", "path": "shape/local.go", "line": 13, "column": 7},
	} {
		a, b := navigate(t, c1, q), navigate(t, c2, q)
		a.Precision.Load, b.Precision.Load = LoadFacts{}, LoadFacts{}
		if len(a.Results) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%v: read from disk\n%+v\nchecked\n%+v", q, renderOut(b), renderOut(a))
		}
	}
}
