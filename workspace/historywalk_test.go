package workspace

import (
	"context"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestHistoryShallow walks a clone of depth 2 as git log does in it: the
// log, with and without a path, ends at the boundary, whose commit is
// judged against the empty tree (it has no parents there). Commits and
// History share one walk, so both end in the same place.
func TestHistoryShallow(t *testing.T) {
	repo := gitfixture.New(t)
	for _, step := range []struct{ msg, file string }{
		{"one", "f.txt"}, {"two", "g.txt"}, {"three", "f.txt"}, {"four", "g.txt"}, {"five", "g.txt"},
	} {
		repo.Commit(t, step.msg, map[string]gitfixture.File{step.file: gitfixture.Text(step.msg + "\n")})
	}
	dir := repo.ShallowClone(t, 3)
	reg := openOne(t, dir, nil)
	ctx := context.Background()
	for _, path := range []string{"", "f.txt", "g.txt"} {
		args := []string{"log", "--format=%H"}
		if path != "" {
			args = append(args, "--", path)
		}
		want := gitOut(t, dir, args...)
		page, err := snapshot(t, reg, "HEAD").History(ctx, LogOptions{Path: path, Limit: 10})
		if err != nil {
			t.Fatalf("History(%q): %v", path, err)
		}
		var got []string
		for _, e := range page.Entries {
			got = append(got, e.SHA)
		}
		if d := diffStrings(want, got); d != "" {
			t.Errorf("History(%q) against git log: %s", path, d)
		}
	}
	var walked []Commit
	if err := snapshot(t, reg, "HEAD").Commits(ctx, func(c Commit) error { walked = append(walked, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(walked) != 3 || len(walked[2].Parents) != 0 {
		t.Errorf("Commits = %+v, want three, the last without parents", walked)
	}
}
