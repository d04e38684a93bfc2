package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// proposals is a repository served in-process by the patch tools, whose
// clock the test sets: the histories' times are the test's choice.
type proposals struct {
	dir    string
	clock  atomic.Int64 // unix nanoseconds
	client *servertest.Client
}

func newProposals(t *testing.T) *proposals {
	t.Helper()
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{
		"a.txt": gitfixture.Text("a\n"),
		"b.txt": gitfixture.Text("b\n"),
	})
	p := &proposals{dir: repo.Dir}
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "fx", Root: repo.Dir}}}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	s := server.New(server.Info{Name: "t"}, server.Options{
		Logger: slog.New(slog.DiscardHandler), Audit: io.Discard, Authorize: toolkit.Authorizer(reg),
	})
	now := func() time.Time { return time.Unix(0, p.clock.Load()) }
	if err := patch.Register(s, reg, patch.Options{Now: now}); err != nil {
		t.Fatal(err)
	}
	p.client = servertest.Start(t, s)
	return p
}

// call calls a tool at time at and decodes its structured result.
func (p *proposals) call(t *testing.T, at time.Time, tool string, args map[string]any) (out struct {
	PatchID    string `json:"patch_id"`
	DiffSHA256 string `json:"diff_sha256"`
}) {
	t.Helper()
	p.clock.Store(at.UnixNano())
	args["workspace_id"] = "fx"
	res := p.client.Call(tool, args)
	if res.IsError != (tool == "apply_patch" && args["diff_sha256"] == strings.Repeat("0", 64)) {
		t.Fatalf("%s %v: %s", tool, args, res.Text)
	}
	json.Unmarshal(res.Structured, &out)
	return out
}

// propose proposes to write content to a.txt at time at, and returns the
// patch id and digest.
func (p *proposals) propose(t *testing.T, at time.Time, content string) (string, string) {
	t.Helper()
	g := p.call(t, at, "generate_patch", map[string]any{"edits": []map[string]any{{"op": "write", "path": "a.txt", "content": content}}})
	return g.PatchID, g.DiffSHA256
}

func (p *proposals) refs(t *testing.T) string {
	t.Helper()
	return gitfixture.Git(t, p.dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/repo-mcp/")
}

// TestPrune makes a proposal for each of prune's cases, through the patch
// tools, and prunes them: first in a dry run, then with the binary.
func TestPrune(t *testing.T) {
	p := newProposals(t)
	now := time.Now()
	old := now.Add(-60 * 24 * time.Hour)
	stale, _ := p.propose(t, old, "stale\n")
	applied, digest := p.propose(t, old, "applied\n")
	p.call(t, old, "apply_patch", map[string]any{"patch_id": applied, "diff_sha256": digest})
	again, _ := p.propose(t, old, "proposed again\n")
	p.propose(t, now.Add(-time.Hour), "proposed again\n")
	tried, _ := p.propose(t, old, "tried\n")
	p.call(t, now.Add(-time.Hour), "apply_patch", map[string]any{"patch_id": tried, "diff_sha256": strings.Repeat("0", 64)})
	unknown, _ := p.propose(t, old, "made before histories\n")
	gitfixture.Git(t, p.dir, "update-ref", "-d", "refs/repo-mcp/history/"+unknown)
	orphan, _ := p.propose(t, old, "a history left alone\n")
	gitfixture.Git(t, p.dir, "update-ref", "-d", "refs/repo-mcp/patches/"+orphan)
	// A ref that is not the tools', and refs packed, as git gc leaves them.
	gitfixture.Git(t, p.dir, "update-ref", "refs/repo-mcp/patches/notes/not-a-patch", orphan)
	gitfixture.Git(t, p.dir, "pack-refs", "--all")
	staleLoose, _ := p.propose(t, old, "stale, loose\n")

	readOnly := newProposals(t)
	roPatch, _ := readOnly.propose(t, old, "stale, read-only\n")
	roBefore := readOnly.refs(t)
	config := filepath.Join(t.TempDir(), "repo-mcp.yaml")
	os.WriteFile(config, []byte("workspaces:\n  - id: ro\n    root: "+readOnly.dir+"\n    read_only: true\n"), 0o644)
	args := []string{"--config", config, "--workspace", "fx=" + p.dir, "--older-than", "30d"}

	wantStale := []string{stale, staleLoose, orphan}
	t.Run("dry run", func(t *testing.T) {
		before := p.refs(t)
		var stdout, stderr strings.Builder
		if status := prune(context.Background(), append(args, "--dry-run"), &stdout, &stderr); status != 0 {
			t.Fatalf("status %d: %s", status, stderr.String())
		}
		want := pruneOutput(wantStale, "would prune 3; kept 1 applied, 2 fresh, 1 of unknown age, 0 changed meanwhile; 0 failed")
		if stdout.String() != want || stderr.String() != "" {
			t.Errorf("stdout:\n%s\nwant\n%s\nstderr:\n%s", stdout.String(), want, stderr.String())
		}
		if after := p.refs(t); after != before {
			t.Errorf("a dry run deleted refs:\n%s\nnow\n%s", before, after)
		}
	})
	t.Run("binary", func(t *testing.T) {
		cmd := exec.Command(repoMCP(t), append([]string{"prune"}, args...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		want := pruneOutput(wantStale, "pruned 3; kept 1 applied, 2 fresh, 1 of unknown age, 0 changed meanwhile; 0 failed")
		if stdout.String() != want || stderr.String() != "" {
			t.Errorf("stdout:\n%s\nwant\n%s\nstderr:\n%s", stdout.String(), want, stderr.String())
		}
		refs := p.refs(t)
		for _, id := range wantStale {
			for _, ref := range []string{"refs/repo-mcp/patches/" + id, "refs/repo-mcp/history/" + id} {
				if strings.Contains(refs, ref) {
					t.Errorf("%s is left", ref)
				}
			}
		}
		kept := []string{"refs/repo-mcp/patches/" + unknown + " ", "refs/repo-mcp/applied/" + applied + "/", "refs/repo-mcp/patches/notes/not-a-patch "}
		for _, id := range []string{applied, again, tried} {
			kept = append(kept, "refs/repo-mcp/patches/"+id+" ", "refs/repo-mcp/history/"+id+" ")
		}
		for _, ref := range kept {
			if !strings.Contains(refs, ref) {
				t.Errorf("%s is gone", ref)
			}
		}
		if after := readOnly.refs(t); after != roBefore || !strings.Contains(after, roPatch) {
			t.Errorf("the read-only workspace changed:\n%s\nnow\n%s", roBefore, after)
		}
		gitfixture.Git(t, p.dir, "fsck", "--strict")
	})
	t.Run("proposed again", func(t *testing.T) {
		id, digest := p.propose(t, now, "stale\n")
		if id != stale {
			t.Fatalf("the same change got id %s, not %s", id, stale)
		}
		if h := gitfixture.Git(t, p.dir, "log", "--format=%s", "refs/repo-mcp/history/"+id); h != "proposed by local\n" {
			t.Errorf("history of the patch proposed again:\n%s", h)
		}
		p.call(t, now, "apply_patch", map[string]any{"patch_id": id, "diff_sha256": digest})
	})
	t.Run("nothing left", func(t *testing.T) {
		var stdout, stderr strings.Builder
		if status := prune(context.Background(), args, &stdout, &stderr); status != 0 {
			t.Fatalf("status %d: %s", status, stderr.String())
		}
		want := pruneOutput(nil, "pruned 0; kept 2 applied, 2 fresh, 1 of unknown age, 0 changed meanwhile; 0 failed")
		if stdout.String() != want {
			t.Errorf("stdout:\n%s\nwant\n%s", stdout.String(), want)
		}
	})
}

// pruneOutput is prune's stdout for workspaces ro (read-only) and fx, in
// which ids, 60 days old, are pruned.
func pruneOutput(ids []string, summary string) string {
	var b strings.Builder
	b.WriteString("ro: read-only, left alone\n")
	for _, id := range slices.Sorted(slices.Values(ids)) {
		b.WriteString("fx " + id + " 60d\n")
	}
	return b.String() + "fx: " + summary + "\n"
}

func TestPruneUsage(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{"a.txt": gitfixture.Text("a\n")})
	ws := "fx=" + repo.Dir
	tests := []struct {
		args       []string
		wantStatus int
		wantStdout string
		wantStderr string
	}{
		{nil, 2, "", "--config or --workspace"},
		{[]string{"--workspace", ws}, 2, "", "--older-than is required"},
		{[]string{"--workspace", ws, "--older-than", "30"}, 2, "", `want a duration such as 36h or 30d, got "30"`},
		{[]string{"--workspace", ws, "--older-than", "-1h"}, 2, "", "must be positive"},
		{[]string{"--workspace", ws, "--older-than", "0d"}, 2, "", "must be positive"},
		{[]string{"--workspace", ws, "--older-than", "1d", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"-h"}, 0, "until git gc collects them", ""},
		{[]string{"--config", "/nonexistent/repo-mcp.yaml", "--older-than", "1d"}, 1, "", "--config"},
		{[]string{"--workspace", "fx=/nonexistent", "--older-than", "1d"}, 1, "", `workspace "fx"`},
		{[]string{"--workspace", ws, "--older-than", "1d12h"}, 0, "fx: pruned 0; kept 0 applied, 0 fresh, 0 of unknown age, 0 changed meanwhile; 0 failed\n", ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			if status := prune(context.Background(), tt.args, &stdout, &stderr); status != tt.wantStatus {
				t.Errorf("status %d, want %d (stderr: %s)", status, tt.wantStatus, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stdout %q, stderr %q; want them to contain %q and %q", stdout.String(), stderr.String(), tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

func TestAge(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		out  string // formatAge(want)
	}{
		{"30d", 30 * day, "30d"},
		{"1d12h", day + 12*time.Hour, "1d12h"},
		{"36h", 36 * time.Hour, "1d12h"},
		{"90m", 90 * time.Minute, "1h30m0s"},
		{"0d1s", time.Second, "1s"},
	}
	for _, tt := range tests {
		got, err := parseAge(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if out := formatAge(tt.want); out != tt.out {
			t.Errorf("formatAge(%v) = %q, want %q", tt.want, out, tt.out)
		}
	}
	for _, bad := range []string{"", "d", "1.5d", "-1d", "1d-1h", "0", "0s", "30", "1w", "d1h"} {
		if d, err := parseAge(bad); err == nil {
			t.Errorf("parseAge(%q) = %v, want an error", bad, d)
		}
	}
	if got := formatAge(60*day + 3*time.Hour + 59*time.Minute); got != "60d3h" {
		t.Errorf("formatAge cuts below the hour past a day: %q", got)
	}
}
