package pathcheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/pathrule"
)

func TestCheck(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.Symlink(outside, filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "inside"))
	tests := []struct {
		path, want string // want "" means refused
		hidden     bool
	}{
		{".", ".", false},
		{"README.md", "README.md", false},
		{"docs/./a.md", "docs/a.md", false},
		{filepath.Join(root, "docs", "a.md"), "docs/a.md", false},
		{root, ".", false},
		{"new/dir/file", "new/dir/file", false},
		{"inside/x", "inside/x", false},
		{"", "", false},
		{"../x", "", false},
		{"docs/../../x", "", false},
		{"docs/../README.md", "", false},
		{"/etc/passwd", "", false},
		{filepath.Join(outside, "f"), "", false},
		{".git/config", "", false},
		{"docs/.GIT/HEAD", "", false},
		{".git/config", "", true},
		{".env", "", false},
		{".env", ".env", true},
		{"a\x00b", "", false},
		{"a\nb", "", false},
		{`a\b`, "", false},
		{"escape/secret", "", false},
	}
	for _, tt := range tests {
		got, err := Check(root, tt.path, Options{AllowHidden: tt.hidden})
		if tt.want == "" {
			if err == nil {
				t.Errorf("Check(%q) = %q; want refused", tt.path, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Check(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

// TestAttacks runs the workspace layer's attack list: the harness's check
// must be at least as strict as repo-mcp's, whatever it allows besides
// (absolute paths inside the root).
func TestAttacks(t *testing.T) {
	root := t.TempDir()
	for _, p := range pathrule.Attacks() {
		for _, hidden := range []bool{false, true} {
			if got, err := Check(root, p, Options{AllowHidden: hidden}); err == nil {
				t.Errorf("Check(%.40q, hidden %v) = %q; want refused", p, hidden, got)
			}
		}
	}
}
