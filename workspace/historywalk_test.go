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

// TestHistoryPathTypeChanges logs paths that are a file in some commits
// and a directory in others, and the files under them, as git log does:
// where one name is both, the path-limited diff compares whole trees.
func TestHistoryPathTypeChanges(t *testing.T) {
	repo := gitfixture.New(t)
	for _, files := range []map[string]gitfixture.File{
		{"a": gitfixture.Text("file\n"), "b/c": gitfixture.Text("one\n")},
		{"a/x": gitfixture.Text("now a directory\n"), "b/c": gitfixture.Text("one\n")},
		{"a/x": gitfixture.Text("changed\n"), "b/c": gitfixture.Text("one\n")},
		{"a/x": gitfixture.Text("changed\n"), "b": gitfixture.Text("c's directory is a file now\n")},
		{"a": gitfixture.Text("a file again\n"), "b/c": gitfixture.Text("two\n"), "b/c.d": gitfixture.Text("\n")},
		{"a": gitfixture.Text("a file again\n"), "b/c/e": gitfixture.Text("deeper\n"), "b/c.d": gitfixture.Text("\n")},
	} {
		repo.Commit(t, "step", files)
	}
	reg := openOne(t, repo.Dir, nil)
	for _, path := range []string{"a", "a/x", "b", "b/c", "b/c/e", "b/c.d"} {
		want := gitOut(t, repo.Dir, "log", "--format=%H", "--", path)
		page, err := snapshot(t, reg, "HEAD").History(context.Background(), LogOptions{Path: path, Limit: 10})
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
}
