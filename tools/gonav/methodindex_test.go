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
	// from the index, like any concrete type's.
	candidates := named
	for _, u := range p.local {
		candidates = append(candidates[:len(candidates):len(candidates)], p.localTypes(u.path)...)
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
