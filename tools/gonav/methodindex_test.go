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
	everyLocal := localSet{Iface: true}
	for _, u := range p.local {
		candidates = append(candidates[:len(candidates):len(candidates)], p.localTypes(u.path, everyLocal)...)
	}
	var targets, answered int
	for _, nt := range candidates {
		if !nt.unit.local && nt.iface == nil {
			continue
		}
		targets++
		tg := &target{obj: nt.obj, unit: nt.unit}
		want := p.objectKeys(p.implementersAmong(tg, all))
		got := p.objectKeys(p.implementers(tg))
		if !slices.Equal(got, want) {
			t.Errorf("implementations of %s (in %s): index gives %v, the walk %v", qualified(nt.obj), nt.unit.id, got, want)
		}
		if len(want) > 0 {
			answered++
		}
		// The names of the types declared in functions rule out none
		// that relates to the target.
		if n, ok := nt.obj.Type().(*types.Named); ok {
			for _, local := range p.localTypes(pathOf(nt.obj), everyLocal) {
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
