package gonav

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

var update = flag.Bool("update", false, "rewrite testdata/relations.golden")

// TestRelations asks every relation about the fixture module and
// compares the answers, one line per result, with the golden file: of a
// service that checks the packages, then of another on the same cache
// directory, which reads them and their indexes from disk.
func TestRelations(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	opts := testOptions(t)
	for _, name := range []string{"checked", "from disk"} {
		t.Run(name, func(t *testing.T) {
			c, sv := serve(t, repo.Dir, opts)
			relationsGolden(t, c)
			if l := sv.progs[0]; name == "from disk" && l.prog.checked != 0 {
				t.Errorf("the second service checked %d packages", l.prog.checked)
			}
		})
	}
}

func relationsGolden(t *testing.T, c *servertest.Client) {
	queries := []map[string]any{
		{"relation": "definition", "symbol": "shape.Total"},
		{"relation": "definition", "path": "square/square.go", "line": 19, "column": 15},
		{"relation": "references", "symbol": "example.com/nav/shape.Total"},
		{"relation": "references", "symbol": "shape.Total", "exclude_tests": true},
		{"relation": "references", "symbol": "(*square.Square).Name"},
		{"relation": "references", "symbol": "square.Square.Side"},
		{"relation": "references", "symbol": "shape.Max"},
		{"relation": "references", "symbol": "shape.Shape.Area"},
		{"relation": "implementations", "symbol": "shape.Shape"},
		{"relation": "implementations", "symbol": "shape.Shape.Area"},
		{"relation": "implementations", "symbol": "square.Square"},
		{"relation": "callers", "symbol": "square.Square.Area"},
		{"relation": "callers", "symbol": "shape.Total", "depth": 2},
		{"relation": "callees", "symbol": "square.Both"},
		{"relation": "callees", "symbol": "circle.Describe"},
		{"relation": "package_api", "symbol": "example.com/nav/shape"},
		{"relation": "package_api", "symbol": "square"},
		{"relation": "definition", "symbol": "Total"},
		{"relation": "references", "symbol": "cgo.Pure"},
	}
	var got strings.Builder
	for _, q := range queries {
		out := navigate(t, c, q)
		delete(q, "workspace_id")
		fmt.Fprintf(&got, "# %v\n", q)
		got.WriteString(renderOut(out))
	}
	// A dependency's declaration is named under $GOROOT, never by a host
	// path (its line differs between Go versions: not in the golden file).
	out := navigate(t, c, map[string]any{"relation": "definition", "symbol": "fmt.Println"})
	if len(out.Results) != 1 || out.Results[0].File != "$GOROOT/src/fmt/print.go" || !strings.HasPrefix(out.Results[0].Text, "func Println(") {
		t.Errorf("definition of fmt.Println: %+v", out.Results)
	}
	golden := filepath.Join("testdata", "relations.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("answers differ from %s (-want +got); -update rewrites it:\n%s", golden, diff)
	}
}

// renderOut writes a result as lines a reviewer can check by eye.
func renderOut(out GoNavigateOut) string {
	var b strings.Builder
	if out.Target != nil {
		fmt.Fprintf(&b, "target %s %s %s:%d:%d\n", out.Target.Kind, out.Target.Name, out.Target.File, out.Target.Line, out.Target.Column)
	}
	for _, c := range out.Candidates {
		fmt.Fprintf(&b, "candidate %s %s %s:%d:%d\n", c.Kind, c.Name, c.File, c.Line, c.Column)
	}
	for _, r := range out.Results {
		fmt.Fprintf(&b, "%s:%d:%d %s", r.File, r.Line, r.Column, r.Kind)
		for _, f := range []struct{ k, v string }{{"name", r.Name}, {"in", r.Enclosing}, {"via", r.Via}, {"sig", r.Signature}, {"doc", r.Doc}} {
			if f.v != "" {
				fmt.Fprintf(&b, " %s=%q", f.k, f.v)
			}
		}
		if r.Depth > 0 {
			fmt.Fprintf(&b, " depth=%d", r.Depth)
		}
		if r.Test {
			b.WriteString(" test")
		}
		fmt.Fprintf(&b, " | %s\n", strings.TrimSpace(r.Text))
	}
	fmt.Fprintf(&b, "precision %s", out.Precision.Mode)
	for _, f := range out.Precision.Failed {
		fmt.Fprintf(&b, " [%s: %s]", f.Package, strings.Join(f.Problems, "; "))
	}
	b.WriteString("\n\n")
	return b.String()
}
