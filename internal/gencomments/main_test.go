package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestGenerate runs the generator on the package in testdata/pkg.txtar and
// compares with the expected comments_gen.go in the same archive.
func TestGenerate(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/pkg.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var want string
	for _, f := range ar.Files {
		if f.Name == "want/comments_gen.go" {
			want = string(f.Data)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := generate(dir, "example.com/tools/greet", "comments_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("generated:\n%s\nwant:\n%s", got, want)
	}
}
