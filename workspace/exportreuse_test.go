package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestExportReuse: an export given an earlier one's files links those
// whose path, blob and mode are the same, and writes the others (a
// changed file, a mode changed, a source file gone); the contents are
// the revision's either way.
func TestExportReuse(t *testing.T) {
	repo := gitfixture.New(t)
	files := map[string]gitfixture.File{
		"same.go":    gitfixture.Text("package a\n"),
		"changed.go": gitfixture.Text("package a // one\n"),
		"run.sh":     gitfixture.Text("echo\n"),
		"gone.go":    gitfixture.Text("package a // gone\n"),
	}
	first := repo.Commit(t, "first", files)
	files["changed.go"] = gitfixture.Text("package a // two\n")
	files["run.sh"] = gitfixture.File{Content: "echo\n", Mode: filemode.Executable}
	second := repo.Commit(t, "second", files)
	reg := openOne(t, repo.Dir, nil)

	before := t.TempDir()
	made := map[string]ExportedFile{}
	if _, err := snapshot(t, reg, first).Export(t.Context(), before, ExportOptions{Exported: func(f ExportedFile) { made[f.Path] = f }}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(before, "gone.go")); err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{}
	reuse := func(f ExportedFile) string {
		asked[f.Path] = true
		if made[f.Path] != f {
			return ""
		}
		return filepath.Join(before, f.Path)
	}
	after := t.TempDir()
	stats, err := snapshot(t, reg, second).Export(t.Context(), after, ExportOptions{Reuse: reuse})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Files != 4 || len(asked) != 4 {
		t.Errorf("%d files exported, %d asked for, want 4", stats.Files, len(asked))
	}
	for p, linked := range map[string]bool{"same.go": true, "changed.go": false, "run.sh": false, "gone.go": false} {
		data, err := os.ReadFile(filepath.Join(after, p))
		if err != nil || string(data) != files[p].Content {
			t.Errorf("%s: %q, %v; want %q", p, data, err, files[p].Content)
		}
		fi, err := os.Stat(filepath.Join(after, p))
		if err != nil {
			t.Fatal(err)
		}
		old, err := os.Stat(filepath.Join(before, p))
		if same := err == nil && os.SameFile(fi, old); same != linked {
			t.Errorf("%s is the earlier export's file %t; want %t", p, same, linked)
		}
	}
	if fi, _ := os.Stat(filepath.Join(after, "run.sh")); fi == nil || fi.Mode()&0o111 == 0 {
		t.Error("run.sh lost its executable bit")
	}
}
