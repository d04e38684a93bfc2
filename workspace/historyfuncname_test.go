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
			comparePatchWithGit(t, repo.Dir, head)
		})
	}
}

// driverSources are files in the languages of the drivers implemented
// here, each line a candidate for a rule and its exceptions: indented and
// qualified definitions, statements that look like calls, labels,
// headings that are not ones. Every line is followed by a body long
// enough that each edit below makes a hunk of its own.
var driverSources = map[string][]string{
	"python": {"import os", "class Plain:", "    def method(self, a):", "    async def later(self):",
		"async  def spaced():", "def top(x):  ", "if __name__ == '__main__':", "classy = 1", "\tdef tabbed():"},
	"rust": {"use std::io;", "pub(crate) fn scoped(a: u32) -> u32 {", "impl<T> Trait for Thing<T> {", "pub struct S {",
		"    pub async fn serve(&self) {", `extern "C" fn callback() {`, "macro_rules! m {", "let x = 1;",
		"pub unsafe trait Raw {", "mod inner;", "enum E {", "const fn k() -> u8 {"},
	"java": {"package p;", "public class Outer {", "    interface Inner {", "    public static void main(String[] args) {",
		"        if (x) {", "        return compute(1);", "    List<String> names(int i) {", "    new Thing(a, b);",
		"    private final Map<String, List<Integer>> cache(Object o) {", "    while (true) {", "enum Color {",
		"    int x = call(a);"},
	"cpp": {"#include <vector>", "int main(int argc, char **argv)", "public:", "out:", "  indented(void)",
		"::global_fn()", "class Widget {", "label: // a comment", "std::vector<int> make(void)", "_under(void)"},
	"markdown": {"# Title", "## Section two", "   ### Indented three", "    #### Four spaces: code",
		"#NoSpace", "###### Six", "####### Seven", "Text line"},
}

// TestFuncNameDriversMatchGit compares the hunk headers of files whose
// diff attribute names each driver implemented here with git show's, and
// the same files without the attribute (git's default rule).
func TestFuncNameDriversMatchGit(t *testing.T) {
	exts := map[string]string{"python": "py", "rust": "rs", "java": "java", "cpp": "cc", "markdown": "md"}
	files := map[string]gitfixture.File{}
	var attrs strings.Builder
	for driver, lines := range driverSources {
		var src strings.Builder
		for i, l := range lines {
			src.WriteString(l + "\n")
			for j := range 9 {
				fmt.Fprintf(&src, "    body_%d_%d\n", i, j)
			}
		}
		ext := exts[driver]
		fmt.Fprintf(&attrs, "*.%s diff=%s\n", ext, driver)
		files["src."+ext] = gitfixture.Text(src.String())
		files["plain_"+ext+".txt"] = gitfixture.Text(src.String())
	}
	files[".gitattributes"] = gitfixture.Text(attrs.String())
	repo := gitfixture.New(t)
	repo.Commit(t, "first", files)
	for p, f := range files {
		if p == ".gitattributes" {
			continue
		}
		lines := strings.SplitAfter(f.Content, "\n")
		for i := 4; i < len(lines); i += 10 {
			lines[i] = "    changed\n"
		}
		files[p] = gitfixture.Text(strings.Join(lines, ""))
	}
	head := repo.Commit(t, "second", files)
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard")
	comparePatchWithGit(t, repo.Dir, head)
}

// comparePatchWithGit checks that the patch of head against its first
// parent, hunk headers included, is git show's.
func comparePatchWithGit(t *testing.T, dir, head string) {
	t.Helper()
	s := snapshot(t, openOne(t, dir, nil), head)
	parent, err := s.Parent(1)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := s.DiffFrom(context.Background(), parent, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := patchLines(t, s, changes)
	want := gitOut(t, dir, "show", "--full-index", "--format=", head)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("patch (-git +ours):\n%s", d)
	}
}
