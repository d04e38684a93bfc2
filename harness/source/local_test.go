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
