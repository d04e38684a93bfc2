package gonav

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestExportLeavesOutTestdata: go_navigate's export holds no testdata
// directory, and a package embedding files from one type-checks all the
// same (go list, not asked for the files embedded, does not look for
// them).
func TestExportLeavesOutTestdata(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "embeds", map[string]gitfixture.File{
		"go.mod": gitfixture.Text("module example.com/e\n\ngo 1.22\n"),
		"emb/emb.go": gitfixture.Text("package emb\n\nimport _ \"embed\"\n\n//go:embed testdata/hello.txt\nvar hello string\n\n" +
			"// Hello returns the embedded greeting.\nfunc Hello() string { return hello }\n"),
		"emb/testdata/hello.txt":  gitfixture.Text("hello\n"),
		"up/up.go":                gitfixture.Text("package up\n\nimport \"embed\"\n\n//go:embed sub/testdata\nvar FS embed.FS\n"),
		"up/sub/testdata/a.txt":   gitfixture.Text("a\n"),
		"plain/plain.go":          gitfixture.Text("package plain\n\nimport \"example.com/e/emb\"\n\n// P says hello.\nfunc P() string { return emb.Hello() }\n"),
		"plain/testdata/big.txt":  gitfixture.Text(strings.Repeat("data\n", 1000)),
		"plain/testdata/pkg/x.go": gitfixture.Text("package pkg\n\nfunc X() {}\n"),
		"testdata/top/unused.txt": gitfixture.Text("unused\n"),
	})
	c, sv := serve(t, repo.Dir, testOptions(t))
	out := navigate(t, c, map[string]any{"relation": "references", "symbol": "emb.Hello"})
	if out.Precision.Mode != "typed" || len(out.Precision.Failed) != 0 {
		t.Errorf("precision %q, failed %+v; want typed, none failed", out.Precision.Mode, out.Precision.Failed)
	}
	if got := kinds(out); got["plain/plain.go:6:30"] != "reference" {
		t.Errorf("references of emb.Hello: %v", got)
	}

	// The export's tree is the directory of its go.mod.
	var tree string
	var files []string
	filepath.WalkDir(sv.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
			if d.Name() == "go.mod" {
				tree = filepath.Dir(p)
			}
		}
		return nil
	})
	var testdata []string
	for _, p := range files {
		if rel, err := filepath.Rel(tree, p); err == nil && strings.Contains(rel, "testdata") {
			testdata = append(testdata, filepath.ToSlash(rel))
		}
	}
	if len(testdata) != 0 || tree == "" {
		t.Errorf("testdata files exported: %q (tree %q)", testdata, tree)
	}
}
