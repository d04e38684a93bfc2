package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// reader is the access most tests read with.
var reader = Access{Identity: "local", Action: ActionRead}

// openOne opens a registry with one workspace "ws" rooted at dir.
func openOne(t *testing.T, dir string, mutate func(*Config)) *Registry {
	t.Helper()
	cfg := Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}
	if mutate != nil {
		mutate(&cfg)
	}
	reg, err := Open(cfg, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { reg.Close() })
	return reg
}

func snapshot(t *testing.T, reg *Registry, rev string) *Snapshot {
	t.Helper()
	s, err := reg.Snapshot(context.Background(), reader, "ws", rev)
	if err != nil {
		t.Fatalf("Snapshot(%q): %v", rev, err)
	}
	return s
}

// wantClass fails unless err is a errclass.Error of the given class. It also
// checks that the message never mentions any of the forbidden strings
// (absolute paths of the test's directories).
func wantClass(t *testing.T, err error, class errclass.Class, forbidden ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", class)
	}
	var se *errclass.Error
	if !errors.As(err, &se) {
		t.Fatalf("got %T %v, want a *errclass.Error of class %s", err, err, class)
	}
	if se.Class != class {
		t.Fatalf("got class %s (%v), want %s", se.Class, err, class)
	}
	for _, f := range forbidden {
		if f != "" && (strings.Contains(se.Message, f) || strings.Contains(se.Hint, f) || strings.Contains(err.Error(), f)) {
			t.Fatalf("error %q reveals %q", err.Error(), f)
		}
	}
}

// basicRepo builds a small repository with two commits, a branch, tags, a
// symlink, a submodule and a secret.
func basicRepo(t *testing.T) (*gitfixture.Repo, []string) {
	t.Helper()
	repo := gitfixture.New(t)
	first := repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md": gitfixture.Text("hello\n"),
	})
	second := repo.Commit(t, "second", map[string]gitfixture.File{
		"README.md":       gitfixture.Text("hello again\n"),
		"a.c":             gitfixture.Text("int a;\n"),
		"a/x.go":          gitfixture.Text("package a\n"),
		"a/b/y.go":        gitfixture.Text("package b\n"),
		"bin/run":         gitfixture.Exec("#!/bin/sh\n"),
		"docs/link":       gitfixture.Link("../README.md"),
		"docs/out":        gitfixture.Link("../../etc/passwd"),
		"docs/abs":        gitfixture.Link("/"),
		"vendor/mod":      gitfixture.Gitlink(first),
		".env":            gitfixture.Text("TOKEN=secret\n"),
		"config/prod.pem": gitfixture.Text("-----BEGIN-----\n"),
	})
	repo.SetRef(t, "refs/heads/dev", first)
	repo.Tag(t, "v1", first, true)
	repo.Tag(t, "light", second, false)
	return repo, []string{first, second}
}

// diffStrings describes how got differs from want, or returns "".
func diffStrings(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	return fmt.Sprintf("want %q\n got %q", want, got)
}
