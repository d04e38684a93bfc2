package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefsSkipLockFiles lists refs while a writer holds lock files in
// refs/: one just created (empty) and one written but not yet renamed.
// Neither fails the listing or shows as a ref, as with git.
func TestRefsSkipLockFiles(t *testing.T) {
	repo, commits := basicRepo(t)
	heads := filepath.Join(repo.Dir, ".git", "refs", "heads")
	if err := os.MkdirAll(filepath.Join(heads, "topic"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"main.lock":       "",
		"topic/new.lock":  commits[0] + "\n",
		"topic/kept":      commits[0] + "\n",
		"topic.lock.d/ok": commits[0] + "\n", // a directory's name is no lock
	} {
		p := filepath.Join(heads, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list, err := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Refs(100)
	if err != nil {
		t.Fatalf("Refs: %v", err)
	}
	var names []string
	for _, b := range list.Branches {
		names = append(names, b.Name)
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"refs/heads/topic/kept", "refs/heads/topic.lock.d/ok"} {
		if !strings.Contains(got, want) {
			t.Errorf("branches %q lack %s", got, want)
		}
	}
	if strings.Contains(got, ".lock ") || strings.HasSuffix(got, ".lock") || strings.Contains(got, "new.lock") {
		t.Errorf("branches %q include a lock file", got)
	}
}
