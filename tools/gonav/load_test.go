package gonav

import (
	"slices"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestRecompiledVariants loads a repository where shape's external test
// imports circle, which imports shape: go list then reports circle
// recompiled for shape's test ("circle [shape.test]"). It is checked for
// its declarations only, with no index, while circle's own unit indexes
// circle's files: each reference is found once, and the package is
// named by its own unit.
func TestRecompiledVariants(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	files["shape/shape_test.go"] = gitfixture.Text("package shape\n\nimport \"testing\"\n\nfunc TestNone(t *testing.T) { _ = Total(nil) }\n")
	files["shape/ext_test.go"] = gitfixture.Text("package shape_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/nav/circle\"\n)\n\nfunc TestCircle(t *testing.T) { _ = circle.Describe(circle.Circle{R: 1}) }\n")
	repo.Commit(t, "variants", files)
	c, sv := serve(t, repo.Dir, testOptions(t))

	refs := navigate(t, c, map[string]any{"relation": References, "symbol": "circle.Describe"})
	var got []string
	for _, l := range refs.Results {
		got = append(got, locString(l)+" "+l.Kind)
	}
	want := []string{"circle/circle.go:11:6 declaration", "shape/ext_test.go:9:44 reference"}
	if !slices.Equal(got, want) {
		t.Errorf("references of circle.Describe: %v, want %v", got, want)
	}
	def := navigate(t, c, map[string]any{"relation": Definition, "symbol": "example.com/nav/circle"})
	if len(def.Results) != 1 || def.Results[0].File != "circle/circle.go" {
		t.Errorf("definition of the package circle: %+v", def.Results)
	}

	prog := sv.progs[0].prog
	variant := prog.unitByID("example.com/nav/circle [example.com/nav/shape.test]")
	if variant == nil {
		t.Fatalf("go list reported no recompiled circle; units: %v", unitIDs(prog))
	}
	if variant.indexed {
		t.Errorf("%s is indexed: a package recompiled for another's test is checked as a dependency", variant.id)
	}
	if own := prog.unitByID("example.com/nav/circle"); own == nil || !own.indexed {
		t.Errorf("circle's own unit is not indexed")
	}
}

func unitIDs(p *program) []string {
	var ids []string
	for _, u := range p.allUnits() {
		ids = append(ids, u.id)
	}
	return ids
}
