package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenNamesTheRoot checks that a root that cannot be opened is named
// as the operator wrote it, not by its first missing component.
func TestOpenNamesTheRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, root, want string
		notExist         bool
	}{
		{"missing", filepath.Join(dir, "no", "such", "repo"), filepath.Join(dir, "no", "such", "repo") + ": file does not exist", true},
		{"not a directory", file, file + " is not a directory", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "app", Root: tt.root}}}, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), `workspace "app": `) {
				t.Fatalf("Open: %v; want an error naming workspace app and saying %q", err, tt.want)
			}
			if errors.Is(err, fs.ErrNotExist) != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %t, want %t", !tt.notExist, tt.notExist)
			}
		})
	}
}
