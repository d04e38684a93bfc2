package toolkit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomic replaces a file whole and leaves no temporary file
// behind; a directory that does not exist fails without writing.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "entry")
	for _, data := range []string{"first", "second, longer"} {
		if err := WriteFileAtomic(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want 1", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "entry"), []byte("x")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}
