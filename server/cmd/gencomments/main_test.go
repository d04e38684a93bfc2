package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/pkg.txtar")

// TestGenerate runs the generator on the package in testdata/pkg.txtar and
// compares with the expected comments_gen.go in the same archive (go test
// -update rewrites it).
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
	if *update {
		for i := range ar.Files {
			if ar.Files[i].Name == "want/comments_gen.go" {
				ar.Files[i].Data = got
			}
		}
		if err := os.WriteFile("testdata/pkg.txtar", txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
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

// TestFromAnotherModule uses the generator the way a tool author outside
// this module does: a go:generate line that runs it by import path, then
// a tool registered with the generated comments, whose schema carries them.
func TestFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module in a temporary directory")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}\n{{.GoVersion}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	root, goVersion, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/othertool\n\ngo " + goVersion + "\n\n" +
			"require github.com/repo-mcp/repo-mcp v0.0.0\n\nreplace github.com/repo-mcp/repo-mcp => " + root + "\n",
		"go.sum": string(sum),
		"main.go": `// Command othertool prints the input schema of its one tool.
package main

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments

import (
	"context"
	"encoding/json"
	"os"

	"github.com/repo-mcp/repo-mcp/server"
)

// GreetIn is what greet takes.
type GreetIn struct {
	// Name is who to greet.
	Name string ` + "`json:\"name\"`" + `
	// LoudVoice, when set, shouts.
	LoudVoice bool ` + "`json:\"loud_voice,omitempty\"`" + `
}

type GreetOut struct {
	Greeting string ` + "`json:\"greeting\"`" + `
}

func main() {
	s := server.New(server.Info{Name: "othertool"}, server.Options{})
	server.MustRegister(s, server.Tool{Name: "greet", Description: "Greets.", Effect: server.ReadOnly, Comments: goComments()},
		func(context.Context, *server.Request, GreetIn) (GreetOut, error) { return GreetOut{}, nil })
	json.NewEncoder(os.Stdout).Encode(s.Tools()[0].InputSchema)
}
`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) string {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		// Everything is in the module cache already; -mod=mod lets go add
		// what the replaced module needs to go.sum.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("generate", "./...")
	if _, err := os.Stat(filepath.Join(dir, "comments_gen.go")); err != nil {
		t.Fatalf("go generate wrote no comments_gen.go: %v", err)
	}
	schema := goCmd("run", ".")
	for _, want := range []string{`"description":"What greet takes."`, `"description":"Who to greet."`, `"description":"loud_voice, when set, shouts."`} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %s:\n%s", want, schema)
		}
	}
}
