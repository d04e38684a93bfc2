package gonav

import (
	"go/types"
	"slices"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestMethodIndexMissesNothing checks the method index against the walk
// it spares: for every named type of the fixture and every interface of
// its dependencies (io, errors, fmt and theirs), implementations among
// the index's candidates are those among all named types. Types declared
// in functions (localTypes) are among the targets.
func TestMethodIndexMissesNothing(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "methods", txtarFiles(t, "testdata/methods.txtar"))
	c, sv := serve(t, repo.Dir, testOptions(t))
	navigate(t, c, map[string]any{"relation": "implementations", "symbol": "rw.ReadCloser"})
	p := sv.progs[0].prog
	named := p.namedTypes()
	all := make([]int32, len(named))
	for i := range all {
		all[i] = int32(i)
	}
	// Types declared in functions are targets too: their candidates come
	// from the index, like any concrete type's. An interface target with
	// no methods rules none of them out by name.
	candidates := named
	localTypes := func(path string) []namedType {
		local, err := p.localTypes(t.Context(), path, localSet{Iface: true})
		if err != nil {
			t.Fatal(err)
		}
		return local
	}
	keys := func(objs []types.Object, err error) []string {
		if err != nil {
			t.Fatal(err)
		}
		return p.objectKeys(objs)
	}
	for _, u := range p.localUnits() {
		candidates = append(candidates[:len(candidates):len(candidates)], localTypes(u.path)...)
	}
	var targets, answered int
	for _, nt := range candidates {
		if !nt.unit.local && nt.iface == nil {
			continue
		}
		targets++
		tg := &target{obj: nt.obj, unit: nt.unit}
		want := keys(p.implementersAmong(t.Context(), tg, all))
		got := keys(p.implementers(t.Context(), tg))
		if !slices.Equal(got, want) {
			t.Errorf("implementations of %s (in %s): index gives %v, the walk %v", qualified(nt.obj), nt.unit.id, got, want)
		}
		if len(want) > 0 {
			answered++
		}
		// The names of the types declared in functions rule out none
		// that relates to the target.
		if n, ok := nt.obj.Type().(*types.Named); ok {
			for _, local := range localTypes(pathOf(nt.obj)) {
				set := localSetOf(local.obj.Type().(*types.Named))
				if relates(nt.obj, nt.unit, local) && !mayRelate(localSetOf(n), set) {
					t.Errorf("%s and %s (declared in a function) relate, but their method names %v and %v rule it out", qualified(nt.obj), qualified(local.obj), localSetOf(n).Names, set.Names)
				}
			}
		}
	}
	t.Logf("%d targets, %d with implementations", targets, answered)
	// The fixture's types alone answer in a dozen ways: fewer means the
	// comparison ran on too little to tell.
	if targets < 30 || answered < 12 {
		t.Errorf("%d targets, %d with implementations: the fixture did not load as it should", targets, answered)
	}
}

// objectKeys returns the keys of objects, in their order.
func (p *program) objectKeys(objs []types.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, p.key(o))
	}
	return out
}
