package workspace

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestFuncNameMatchesGit compares hunk headers with git show's on files
// built so that the rules disagree: git's default rule (a line starting
// with a letter, '_' or '$'), the golang driver that .gitattributes names
// for *.go (indented funcs, struct and interface types, not "var ("),
// names past 80 bytes, CRLF lines, and hunks whose search finds nothing
// new and keep the previous hunk's name.
func TestFuncNameMatchesGit(t *testing.T) {
	var goSrc, cSrc strings.Builder
	goSrc.WriteString("package p\n\nvar (\n\ta = 1\n)\n\ntype T struct {\n\tX int\n}\n\n")
	for i := range 12 {
		fmt.Fprintf(&goSrc, "\tfunc (t *T) M%d(arg int) int { // a long comment that runs past the eighty bytes git keeps of a name\n", i)
		for j := range 8 {
			fmt.Fprintf(&goSrc, "\treturn %d + %d\n", i, j)
		}
		goSrc.WriteString("}\n\ntype I interface {\n\tM()\n}\n\nvar (\n\tb = 2\n)\n\n")
	}
	cSrc.WriteString("#include <stdio.h>\n\n")
	for i := range 10 {
		fmt.Fprintf(&cSrc, "$dollar_%d:\r\n_under_%d(void)   \n{\n", i, i)
		for j := range 9 {
			fmt.Fprintf(&cSrc, "    x = %d;\n", j)
		}
		cSrc.WriteString("}\n")
	}
	cSrc.WriteString("long_function(void)\n{\n")
	for j := range 60 {
		fmt.Fprintf(&cSrc, "    y = %d;\n", j)
	}
	cSrc.WriteString("}\n")
	edit := func(s string) string {
		lines := strings.SplitAfter(s, "\n")
		for i := 5; i < len(lines); i += 17 {
			lines[i] = "changed\n"
		}
		return strings.Join(lines, "")
	}
	for _, attrs := range []string{"", "*.go diff=golang\n", "*.go diff=python\n"} {
		t.Run(fmt.Sprintf("attributes %q", attrs), func(t *testing.T) {
			repo := gitfixture.New(t)
			files := map[string]gitfixture.File{"p.go": gitfixture.Text(goSrc.String()), "c.c": gitfixture.Text(cSrc.String()), "p.txt": gitfixture.Text(goSrc.String())}
			if attrs != "" {
				files[".gitattributes"] = gitfixture.Text(attrs)
			}
			repo.Commit(t, "first", files)
			for _, p := range []string{"p.go", "c.c", "p.txt"} {
				files[p] = gitfixture.Text(edit(files[p].Content))
			}
			head := repo.Commit(t, "second", files)
			// git reads attributes from the checkout, this package from
			// HEAD's tree: they agree once HEAD is checked out.
			gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard")
			reg := openOne(t, repo.Dir, nil)
			s := snapshot(t, reg, head)
			parent, err := s.Parent(1)
			if err != nil {
				t.Fatal(err)
			}
			changes, err := s.DiffFrom(context.Background(), parent, DiffOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := patchLines(t, s, changes)
			want := gitOut(t, repo.Dir, "show", "--full-index", "--format=", head)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("patch (-git +ours):\n%s", d)
			}
		})
	}
}
