package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestCheckedInFilesAreCurrent regenerates every comments_gen.go in the
// module and fails when one differs: run go generate ./... after editing a
// tool's doc comments.
func TestCheckedInFilesAreCurrent(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}} {{.ImportPath}}", "github.com/repo-mcp/repo-mcp/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, importPath, _ := strings.Cut(line, " ")
		want, err := os.ReadFile(filepath.Join(dir, "comments_gen.go"))
		if err != nil {
			continue
		}
		checked++
		got, err := generate(dir, importPath, "comments_gen.go")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s/comments_gen.go is stale: run go generate ./...", importPath)
		}
	}
	if checked == 0 {
		t.Error("found no comments_gen.go to check")
	}
}
