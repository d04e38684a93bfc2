package gonav

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestBlankBodies: the bodies of function declarations are blanked,
// every other byte and every newline kept; what blankBodies cannot tell
// apart is left as it was.
func TestBlankBodies(t *testing.T) {
	tests := []struct {
		name, src string
		blanked   []string // substrings gone
		kept      []string // substrings still there
		ok        bool
	}{
		{
			name:    "function and method bodies",
			src:     "package p\n\nfunc F() int {\n\treturn 1 + g()\n}\n\nfunc (t *T[K]) M(x interface{ N() }) (struct{ a int }, error) {\n\tfor { break }\n\treturn struct{ a int }{}, nil\n}\n",
			blanked: []string{"return 1 + g()", "for { break }"},
			kept:    []string{"interface{ N() }", "(struct{ a int }, error) {"},
			ok:      true,
		},
		{
			name: "literals and types are kept",
			src: "package p\n\nvar a = [...]func(){f, g}\nvar m = map[string]func(){\"x\": nil}\ntype S struct{ f func() }\n" +
				"func Asm() int\nvar b = [...]int{1, 2}\nconst s = \"{\" + `}` + string('{')\n",
			kept: []string{"{f, g}", "{\"x\": nil}", "{1, 2}", "`}`"},
			ok:   true,
		},
		{
			name:    "braces in comments and literals of a body",
			src:     "package p\n\nfunc F() string {\n\t// }\n\t/* { */\n\treturn \"}\" + `{` + string('}')\n}\n\nvar after = [...]int{3}\n",
			blanked: []string{"return"},
			kept:    []string{"[...]int{3}"},
			ok:      true,
		},
		{name: "line directive", src: "package p\n\nfunc F() {\n//line x.go:10\n\tg()\n}\n", kept: []string{"g()"}},
		{name: "brace left open", src: "package p\n\nfunc F() {\n\tg()\n", kept: []string{"g()"}},
		{name: "string left open", src: "package p\n\nfunc F() {\n\tg(\"x)\n}\n", kept: []string{"g(\"x)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			ok := blankBodies(src)
			if ok != tc.ok {
				t.Errorf("blankBodies = %t, want %t", ok, tc.ok)
			}
			got := string(src)
			if len(got) != len(tc.src) || strings.Count(got, "\n") != strings.Count(tc.src, "\n") {
				t.Fatalf("offsets or lines moved:\n%s", got)
			}
			if !ok && got != tc.src {
				t.Errorf("left changed:\n%s", got)
			}
			for _, s := range tc.blanked {
				if strings.Contains(got, s) {
					t.Errorf("%q is still there:\n%s", s, got)
				}
			}
			for _, s := range tc.kept {
				if !strings.Contains(got, s) {
					t.Errorf("%q is gone:\n%s", s, got)
				}
			}
		})
	}
}

// TestBlankBodiesKeepsDeclarations parses the Go files of a few
// standard library packages whole and with their bodies blanked: the
// blanked parse has no error, and every identifier outside a block
// (what a check of declarations and an entry read) is at the same
// position with the same name.
func TestBlankBodiesKeepsDeclarations(t *testing.T) {
	var names []string
	for _, dir := range []string{"strings", "fmt", "go/types", "net/http", "encoding/json", "runtime", "math/big"} {
		found, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
		if err != nil || len(found) == 0 {
			t.Fatalf("the Go files of %s: %v", dir, err)
		}
		names = append(names, found...)
	}
	var blanked int
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want := declaredIdents(t, name, src)
		if !blankBodies(src) {
			continue
		}
		blanked++
		if got := declaredIdents(t, name, src); !slices.Equal(got, want) {
			t.Errorf("%s: the declarations differ once its bodies are blanked", name)
		}
	}
	if blanked < len(names)/2 {
		t.Errorf("%d of %d files blanked", blanked, len(names))
	}
}

// declaredIdents parses a file and lists its identifiers outside
// blocks, with their positions.
func declaredIdents(t *testing.T, name string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			out = append(out, fmt.Sprintf("%s %s", fset.Position(n.Pos()), n.Name))
		case *ast.BlockStmt:
			return false
		}
		return true
	})
	return out
}
