package goindex

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocCommentsMatchGoAST checks the doc comments read from source text
// against those go/parser attaches with ParseComments, for every
// declaration in the Go distribution's source tree. testdata is left out:
// its type-checker fixtures put several comments on one line and have
// syntax errors on purpose, where the two readings may differ.
func TestDocCommentsMatchGoAST(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the Go distribution's source")
	}
	checked, failed := 0, 0
	err := filepath.WalkDir(filepath.Join(goroot(t), "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		want, wantPkg := astDocs(src)
		pf := parseFile(src)
		if pf.pkgDoc != wantPkg {
			failed++
			t.Errorf("%s: package doc %q, go/ast: %q", p, pf.pkgDoc, wantPkg)
		}
		for _, s := range pf.syms {
			w, ok := want[fmt.Sprintf("%d:%d", s.line, s.col)]
			if !ok {
				continue
			}
			checked++
			if s.doc != w {
				failed++
				t.Errorf("%s:%d:%d: doc %q, go/ast: %q", p, s.line, s.col, s.doc, w)
			}
			if failed > 20 {
				return fs.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d declarations checked", checked)
}

// astDocs returns the first sentences of the doc comments go/ast attaches
// to the declarations of src, by position, and of the package.
func astDocs(src []byte) (map[string]string, string) {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	docs := make(map[string]string)
	if f == nil {
		return docs, ""
	}
	set := func(id *ast.Ident, groups ...*ast.CommentGroup) {
		pos := fset.Position(id.Pos())
		docs[fmt.Sprintf("%d:%d", pos.Line, pos.Column)] = astSentence(groups...)
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			set(decl.Name, decl.Doc)
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					set(spec.Name, spec.Doc, spec.Comment, decl.Doc)
					var list *ast.FieldList
					switch t := spec.Type.(type) {
					case *ast.StructType:
						list = t.Fields
					case *ast.InterfaceType:
						list = t.Methods
					}
					if list != nil {
						for _, field := range list.List {
							for _, n := range field.Names {
								set(n, field.Doc, field.Comment)
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						set(n, spec.Doc, spec.Comment, decl.Doc)
					}
				}
			}
		}
	}
	return docs, astSentence(f.Doc)
}

func astSentence(groups ...*ast.CommentGroup) string {
	for _, g := range groups {
		if g == nil {
			continue
		}
		var lines []string
		for _, c := range g.List {
			if text, ok := strings.CutPrefix(c.Text, "//"); ok {
				lines = append(lines, text)
			} else {
				text = strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
				lines = append(lines, strings.Split(strings.TrimSpace(text), "\n")...)
			}
		}
		if s := sentenceOf(lines); s != "" {
			return s
		}
	}
	return ""
}

// goroot returns the GOROOT of the go command that runs the tests.
func goroot(tb testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skip("go env GOROOT:", err)
	}
	return strings.TrimSpace(string(out))
}
