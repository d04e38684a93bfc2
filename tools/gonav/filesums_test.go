package gonav

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// TestFileSumsAreBlobIDs: a file the export names is not read, and a
// file it does not is given its blob id, as git computes it, so that a
// package's key is the same whichever process wrote the export
// (TestTypesOnDisk checks that end to end).
func TestFileSumsAreBlobIDs(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.go": "package a\n", "empty.go": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := newFileSums(dir, map[string]workspace.ExportedFile{"p/named.go": {Path: "p/named.go", Blob: "0123abcd"}})
	if id, err := s.sum(filepath.Join(dir, "p", "named.go")); err != nil || id != "0123abcd" {
		t.Errorf("a file the export named (and which is not there): %q, %v; want its blob, unread", id, err)
	}
	for _, name := range []string{"a.go", "empty.go", "a.go"} {
		path := filepath.Join(dir, name)
		out, err := exec.Command("git", "hash-object", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		if id, err := s.sum(path); err != nil || id != strings.TrimSpace(string(out)) {
			t.Errorf("%s: %q, %v; git hash-object says %s", name, id, err, out)
		}
	}
	if s.hashed != 2 {
		t.Errorf("%d files hashed, want 2: a file is hashed once per load", s.hashed)
	}
	if _, err := s.sum(filepath.Join(dir, "missing.go")); err == nil {
		t.Error("a missing file the export did not name has a sum")
	}
}
