package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/hostilepath"
)

func TestCleanPathAccepts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{".", ""},
		{"./", ""},
		{"a", "a"},
		{"a/b/c.go", "a/b/c.go"},
		{"a//b/", "a/b"},
		{"./a/./b", "a/b"},
		{"a/../b", "b"},
		{"a/b/..", "a"},
		{".gitignore", ".gitignore"},
		{".github/workflows/ci.yml", ".github/workflows/ci.yml"},
		{"a/.gitmodules", "a/.gitmodules"},
		{"git", "git"},
		{"100%.txt", "100%.txt"},
		{"%41.txt", "%41.txt"},
		{"résumé.md", "résumé.md"},
		{"ab:c", "ab:c"}, // not a drive letter nor a URL
		{"x/C:y", "x/C:y"},
		{strings.Repeat("a/", 255) + "a", strings.Repeat("a/", 255) + "a"},
	} {
		got, err := CleanPath(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// hostilePaths are refused by CleanPath, whatever the workspace holds.
// The harness's pathcheck refuses them too.
var hostilePaths = hostilepath.Paths()

func TestCleanPathRefuses(t *testing.T) {
	for _, in := range hostilePaths {
		got, err := CleanPath(in)
		if err == nil {
			t.Errorf("CleanPath(%q) = %q, want an error", in, got)
			continue
		}
		wantClass(t, err, errclass.InvalidInput)
		if len(err.Error()) > 300 {
			t.Errorf("CleanPath(%q): error of %d bytes", in[:20], len(err.Error()))
		}
	}
}

// FuzzCleanPath checks the invariant: a path is refused, or it resolves
// inside the root and outside .git.
func FuzzCleanPath(f *testing.F) {
	for _, s := range hostilePaths {
		f.Add(s)
	}
	for _, s := range []string{"a/b", "a/../b", "./x", ".gitignore", "%41", "a//b/"} {
		f.Add(s)
	}
	root := filepath.FromSlash("/srv/ws")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := CleanPath(in)
		if err != nil {
			if errclass.ClassOf(err) != errclass.InvalidInput {
				t.Fatalf("CleanPath(%q): class %s", in, errclass.ClassOf(err))
			}
			return
		}
		if got != "" && !filepath.IsLocal(got) {
			t.Fatalf("CleanPath(%q) = %q, not local", in, got)
		}
		joined := filepath.Join(root, got)
		if joined != root && !strings.HasPrefix(joined, root+string(filepath.Separator)) {
			t.Fatalf("CleanPath(%q) = %q escapes the root", in, got)
		}
		for _, comp := range splitPath(got) {
			if comp == "" || comp == "." || comp == ".." || IsGitDirName(comp) || strings.ContainsAny(comp, "\\\x00") {
				t.Fatalf("CleanPath(%q) = %q has component %q", in, got, comp)
			}
		}
		if again, err := CleanPath(got); err != nil || again != got {
			t.Fatalf("CleanPath is not idempotent on %q: %q, %v", got, again, err)
		}
	})
}
