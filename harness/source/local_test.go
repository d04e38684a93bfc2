package source

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/pathcheck"
)

func TestLocal(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# Title\n\nHello."), 0o644)
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(root, ".env"), []byte("TOKEN=1"), 0o644)
	os.WriteFile(filepath.Join(root, "bin"), []byte{0, 1, 2}, 0o644)
	l, err := NewLocal(root, pathcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		tool, args string
		isError    bool
		want       string
	}{
		{"list_files", `{}`, false, "README.md\nbin\n"},
		{"read_file", `{"path":"README.md"}`, false, "# Title\n\nHello."},
		{"read_file", `{"path":".env"}`, true, "permission_denied"},
		{"read_file", `{"path":".git/config"}`, true, "permission_denied"},
		{"read_file", `{"path":"../x"}`, true, "permission_denied"},
		{"read_file", `{"path":"missing"}`, true, "not_found"},
		{"read_file", `{"path":"bin"}`, true, "not a text file"},
		{"read_file", `{"path":"README.md","extra":1}`, true, "invalid_input"},
		{"write_note", `{"path":"notes/n.md","text":"three sentences."}`, false, "wrote 16 bytes to notes/n.md"},
		{"read_file", `{"path":"notes/n.md"}`, false, "three sentences."},
		{"write_note", `{"path":"/etc/x","text":"no"}`, true, "permission_denied"},
	}
	for _, tt := range tests {
		res, err := l.Call(ctx, tt.tool, json.RawMessage(tt.args))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.tool, tt.args, err)
		}
		if res.IsError != tt.isError || !strings.Contains(res.Text(), tt.want) {
			t.Errorf("%s %s = %q (isError %v); want %q (isError %v)", tt.tool, tt.args, res.Text(), res.IsError, tt.want, tt.isError)
		}
	}
}

// A note is never written through a symbolic link, even one that stays
// inside the workspace, and replaces the file it names rather than writing
// into it: a hard link to a hook keeps the hook's content.
func TestLocalWriteRefusesLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755))
	must(os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644))
	must(os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	must(os.Symlink(".git", filepath.Join(root, "meta")))
	must(os.Symlink(".git/hooks", filepath.Join(root, "hooks")))
	must(os.Symlink("docs", filepath.Join(root, "inside")))
	must(os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("a"), 0o644))
	must(os.Symlink("a.md", filepath.Join(root, "docs", "link.md")))
	hook := filepath.Join(outside, "post-checkout")
	must(os.WriteFile(hook, []byte("#!/bin/sh\necho hook\n"), 0o755))
	must(os.Link(hook, filepath.Join(root, "linked-hook")))
	must(os.WriteFile(filepath.Join(root, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	l, err := NewLocal(root, pathcheck.Options{AllowHidden: true})
	must(err)
	for _, tt := range []struct {
		path, want string
	}{
		{"meta/config", "permission_denied"},
		{"hooks/post-checkout", "permission_denied"},
		{"inside/new.md", "permission_denied: a note is never written through a symbolic link"},
		{"docs/link.md", "permission_denied: a note is never written through a symbolic link"},
		{"docs", "not a regular file"},
		{"docs/a.md/x", "not a directory"},
		{"linked-hook", "wrote 5 bytes"},
		{"run.sh", "wrote 5 bytes"},
	} {
		args, _ := json.Marshal(map[string]string{"path": tt.path, "text": "owned"})
		res, err := l.Call(context.Background(), "write_note", args)
		must(err)
		if !strings.Contains(res.Text(), tt.want) {
			t.Errorf("write_note %s = %q; want %q", tt.path, res.Text(), tt.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config became %q", b)
	}
	if b, _ := os.ReadFile(hook); string(b) != "#!/bin/sh\necho hook\n" {
		t.Errorf("the hard-linked hook became %q", b)
	}
	for name, want := range map[string]string{"linked-hook": "owned", "run.sh": "owned", "docs/a.md": "a"} {
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != want {
			t.Errorf("%s holds %q; want %q", name, b, want)
		}
	}
	if st, err := os.Stat(filepath.Join(root, "run.sh")); err != nil || st.Mode()&0o111 != 0 {
		t.Errorf("run.sh after a note: %v, %v; want not executable", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 7 {
		t.Errorf("the workspace holds %d entries; a temporary file was left behind?", len(entries))
	}
}
