package pathcheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/hostilepath"
	"github.com/repo-mcp/repo-mcp/workspace"
)

func TestCheck(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755)
	os.Symlink(outside, filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "inside"))
	os.Symlink(".git", filepath.Join(root, "meta"))
	os.Symlink(".git/hooks", filepath.Join(root, "hooks"))
	os.WriteFile(filepath.Join(root, ".env"), nil, 0o644)
	os.Symlink(".env", filepath.Join(root, "env"))
	os.Symlink("nothing", filepath.Join(root, "dangling"))
	tests := []struct {
		path, want string // want "" means refused
		hidden     bool
	}{
		{".", ".", false},
		{"README.md", "README.md", false},
		{"docs/./a.md", "docs/a.md", false},
		{filepath.Join(root, "docs", "a.md"), "docs/a.md", false},
		{root, ".", false},
		{root + "/", ".", false},
		{"new/dir/file", "new/dir/file", false},
		{"inside/x", "inside/x", false},
		{"x/~", "x/~", false},
		{"100%.txt", "100%.txt", false},
		{"", "", false},
		{"../x", "", false},
		{"docs/../../x", "", false},
		{"docs/../README.md", "", false},
		{"/etc/passwd", "", false},
		{filepath.Join(outside, "f"), "", false},
		{root + "/../" + filepath.Base(outside) + "/f", "", false},
		{root + "x/f", "", false},
		{root + "/.git/config", "", true},
		{".git/config", "", false},
		{"docs/.GIT/HEAD", "", false},
		{".git/config", "", true},
		{".env", "", false},
		{".env", ".env", true},
		{"a\x00b", "", false},
		{"a\nb", "", false},
		{`a\b`, "", false},
		{"escape/secret", "", false},
		{"~/x", "", false},
		{"~", "", false},
		{"~root/.ssh/id_rsa", "", true},
		{"%2e%2e/x", "", false},
		{"meta/config", "", true},
		{"meta", "", true},
		{"hooks/post-checkout", "", true},
		{"env", "", false},
		{"env", "env", true},
		{"dangling", "", true},
	}
	for _, tt := range tests {
		got, err := Check(root, tt.path, Options{AllowHidden: tt.hidden})
		if tt.want == "" {
			var pe *Error
			if err == nil || !errors.As(err, &pe) {
				t.Errorf("Check(%q) = %q, %v; want an *Error", tt.path, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Check(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

// The attack list that workspace.CleanPath refuses is refused here too,
// with hidden paths allowed: pathcheck is at least as strict.
func TestCheckRefusesWhatWorkspaceRefuses(t *testing.T) {
	if hostilepath.MaxPathBytes != workspace.MaxPathBytes {
		t.Fatalf("hostilepath.MaxPathBytes %d; workspace.MaxPathBytes %d", hostilepath.MaxPathBytes, workspace.MaxPathBytes)
	}
	root := t.TempDir()
	for _, p := range hostilepath.Paths() {
		if got, err := workspace.CleanPath(p); err == nil {
			t.Errorf("workspace.CleanPath(%.40q) = %q; want refused", p, got)
		}
		got, err := Check(root, p, Options{AllowHidden: true})
		if err == nil {
			t.Errorf("Check(%.40q) = %q; want refused", p, got)
			continue
		}
		if len(err.Error()) > 400 {
			t.Errorf("Check(%.40q): an error of %d bytes", p, len(err.Error()))
		}
		if strings.ContainsAny(err.Error(), "\x00\n\x1b") {
			t.Errorf("Check(%.40q): the error holds raw control bytes: %q", p, err)
		}
	}
}

// TestRootRepointed: a Root resolves its symbolic links once, so a root
// re-pointed after that makes the paths it now leads to refused, never
// accepted; a root that could not be resolved yet is tried again.
func TestRootRepointed(t *testing.T) {
	base := t.TempDir()
	first, second := filepath.Join(base, "first"), filepath.Join(base, "second")
	for _, d := range []string{first, second} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "README.md"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "ws")
	r := NewRoot(link, Options{})
	if _, err := r.Check("README.md"); err == nil {
		t.Fatal("a path under a root that does not exist was accepted")
	}
	if err := os.Symlink(first, link); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Check("README.md"); err != nil || got != "README.md" {
		t.Fatalf("Check = %q, %v", got, err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(second, link); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Check("README.md"); err == nil {
		t.Errorf("Check after the root was re-pointed = %q; want refused", got)
	}
}
