package workspace

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLinkedWorktreeLargeBlob reads and exports, from a linked worktree, a
// packed blob over the large-object threshold, which go-git streams by
// reopening its pack: in a linked worktree the pack lives in the common
// directory, and it once read as missing there.
func TestLinkedWorktreeLargeBlob(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	mainDir, linked := filepath.Join(dir, "main"), filepath.Join(dir, "linked")
	git := func(d string, args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = d
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var big bytes.Buffer
	for i := 0; big.Len() < 2*largeObjectThreshold; i++ {
		fmt.Fprintf(&big, "line %d of a large file\n", i)
	}
	if err := os.MkdirAll(mainDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mainDir, "big.txt"), big.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	git(mainDir, "init", "-q", "-b", "main")
	git(mainDir, "add", ".")
	git(mainDir, "commit", "-qm", "big")
	git(mainDir, "gc", "-q")
	git(mainDir, "worktree", "add", "-q", "-b", "side", linked)

	s := snapshot(t, openOne(t, linked, nil), "HEAD")
	f, err := s.ReadFile(t.Context(), "big.txt", ReadOptions{Limit: int64(big.Len())})
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	if !bytes.Equal(f.Data, big.Bytes()) {
		t.Errorf("ReadFile: %d bytes, want the file's %d", len(f.Data), big.Len())
	}
	out := t.TempDir()
	if _, err := s.Export(t.Context(), out, ExportOptions{}); err != nil {
		t.Fatalf("Export: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(out, "big.txt")); err != nil || !bytes.Equal(got, big.Bytes()) {
		t.Errorf("exported big.txt: %d bytes, %v", len(got), err)
	}
}
