package gonav

import (
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestSecondRevision loads a revision, then one that changes a file no
// other package imports: only that package is checked again.
func TestSecondRevision(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	first := repo.Commit(t, "first", files)
	files["circle/circle.go"] = gitfixture.Text(files["circle/circle.go"].Content + "\nfunc Unit() Circle { return Circle{R: 1} }\n")
	second := repo.Commit(t, "second", files)
	c, _ := serve(t, repo.Dir, testOptions(t))

	out1 := navigate(t, c, map[string]any{"relation": "definition", "symbol": "shape.Total", "revision": first})
	if out1.Precision.Load.Checked != out1.Precision.Load.Packages {
		t.Errorf("first load checked %d of %d packages", out1.Precision.Load.Checked, out1.Precision.Load.Packages)
	}
	out2 := navigate(t, c, map[string]any{"relation": "definition", "symbol": "circle.Unit", "revision": second})
	if got := out2.Precision.Load.Checked; got != 1 {
		t.Errorf("second revision checked %d packages, want 1 (circle); %d loaded", got, out2.Precision.Load.Packages)
	}
	if len(out2.Results) != 1 || out2.Results[0].File != "circle/circle.go" {
		t.Errorf("circle.Unit at the second revision: %+v", out2.Results)
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
