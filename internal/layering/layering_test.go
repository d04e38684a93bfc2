package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/repo-mcp/repo-mcp"

// pkg is what go list says about one package of the module.
type pkg struct {
	ImportPath string
	Imports    []string // direct imports
	Deps       []string // every package it depends on, transitively

	TestImports  []string // direct imports of the package's _test.go files
	XTestImports []string // and of its external (package x_test) test files
}

// listPackages runs go list over the whole module. Deps are those of the
// shipped code; the test files' direct imports are listed apart, for the
// rules that hold for tests too.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Imports,Deps,TestImports,XTestImports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module+"/")] = p
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// forks are third-party libraries kept in the module with a change of ours
// (each says which in its README): they belong to no layer, so the rules
// treat them as the modules they came from.
var forks = []string{"internal/jsonschema"}

// own returns the packages of this module among paths, relative to it,
// forks left out.
func own(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, module+"/"); ok && !isFork(rest) {
			out = append(out, rest)
		}
	}
	return out
}

// TestImportRules checks the rules of docs/design.md ("What may import
// what"). Each case names a package and what it must not reach.
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	get := func(name string) pkg {
		p, ok := pkgs[name]
		if !ok {
			t.Fatalf("package %s not found", name)
		}
		return p
	}

	// leaves are the packages server/ may import: each imports nothing of
	// the project but other leaves (schemacheck reads arguments with
	// jsonscan, the project's one JSON scanner), and each is the one home
	// of a concept both sides of the wire (or every layer) need.
	leaves := []string{"errclass", "internal/atomicfile", "internal/bufpool", "internal/jsonquote", "internal/jsonscan", "internal/schemacheck"}
	for _, leaf := range leaves {
		t.Run(leaf+" imports nothing of the project but the leaves", func(t *testing.T) {
			for _, dep := range own(get(leaf).Deps) {
				if !slices.Contains(leaves, dep) {
					t.Errorf("%s depends on %s", leaf, dep)
				}
			}
		})
	}
	t.Run("server imports nothing of the project but the leaves", func(t *testing.T) {
		for _, imp := range own(get("server").Imports) {
			if !slices.Contains(leaves, imp) {
				t.Errorf("server imports %s; it may import only %v", imp, leaves)
			}
		}
	})
	t.Run("the harness does not link the server", func(t *testing.T) {
		for name, p := range pkgs {
			if name != "harness" && !strings.HasPrefix(name, "harness/") && name != "client" {
				continue
			}
			for _, d := range own(p.Deps) {
				if d == "server" || strings.HasPrefix(d, "server/") || d == "workspace" {
					t.Errorf("%s depends on %s", name, d)
				}
			}
		}
	})
	t.Run("workspace does not depend on server", func(t *testing.T) {
		for _, d := range own(get("workspace").Deps) {
			if d == "server" || strings.HasPrefix(d, "server/") {
				t.Errorf("workspace depends on %s", d)
			}
		}
	})
	t.Run("workspace's tests do not depend on server", func(t *testing.T) {
		// A test that needs server/ to check an error class would make the
		// layer above a dependency of the layer below, in its tests if not
		// in its code: classes are errclass's.
		ws := get("workspace")
		for _, imp := range own(append(ws.TestImports, ws.XTestImports...)) {
			if imp == "workspace" {
				continue
			}
			for _, d := range append(own(get(imp).Deps), imp) {
				if d == "server" || strings.HasPrefix(d, "server/") {
					t.Errorf("workspace's tests import %s, which is or depends on %s", imp, d)
				}
			}
		}
	})
	t.Run("only workspace imports go-git", func(t *testing.T) {
		for name, p := range pkgs {
			// gitfixture builds the repositories tests read; it is on no
			// read path.
			if name == "workspace" || name == "internal/gitfixture" {
				continue
			}
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, "github.com/go-git/") {
					t.Errorf("%s imports %s", name, imp)
				}
			}
		}
	})
	t.Run("tools reach the repository only through workspace", func(t *testing.T) {
		for name, p := range pkgs {
			if !strings.HasPrefix(name, "tools/") {
				continue
			}
			for _, d := range own(p.Deps) {
				// internal/otlphttp comes with server/tracing, whose spans
				// it carries; it imports nothing of the project.
				if d == "server" || d == "workspace" || d == "internal/pathrule" || d == "internal/otlphttp" || slices.Contains(leaves, d) ||
					strings.HasPrefix(d, "tools/") || strings.HasPrefix(d, "server/") {
					continue
				}
				t.Errorf("%s depends on %s", name, d)
			}
		}
	})
}

// isFork reports whether a package, relative to the module, is in a fork.
func isFork(rel string) bool {
	for _, f := range forks {
		if rel == f || strings.HasPrefix(rel, f+"/") {
			return true
		}
	}
	return false
}
