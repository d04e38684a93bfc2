package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/audit"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/jsonl"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestReviewedChangeRepoMCP is a reviewed change end to end through
// repo-mcp: the model proposes with generate_patch and looks at it with
// preview_diff; a person approves apply_patch shown the previewed diff (the
// harness fetches it with preview_diff), and the digest the model passes;
// the branch moves; verify_patch checks the result.
func TestReviewedChangeRepoMCP(t *testing.T) {
	bin := repoMCP(t)
	repo := gitfixture.New(t)
	base := repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md": gitfixture.Text("# Fixture\n\nAn old line.\n"),
		"go.mod":    gitfixture.Text("module example.com/fx\n\ngo 1.26\n"),
		"main.go":   gitfixture.Text("package main\n\nfunc main() {}\n"),
	})
	state := t.TempDir()
	serverAudit := filepath.Join(t.TempDir(), "audit.jsonl")
	config := filepath.Join(state, "harness.yaml")
	must(t, os.WriteFile(config, []byte(`state_dir: `+state+`
servers:
  repo:
    command: [`+bin+`, serve, --index-cache, "off", --verify-checks, gofmt, --audit-log, `+serverAudit+`, --workspace, "fx=`+repo.Dir+`"]
    inherit: [HOME, PATH]
    workspace: `+repo.Dir+`
    approve: first_use
    tools:
      generate_patch: {effect: write}
      preview_diff: {effect: read_only}
      apply_patch: {effect: destructive, preview_with: {tool: preview_diff, args: [workspace_id, patch_id]}}
      verify_patch: {effect: write}
model:
  kind: scripted
  args: {workspace_id: fx}
  steps:
    - {tool: generate_patch, args: {edits: [{op: replace, path: README.md, old_text: "An old line.", new_text: "A reviewed line."}]}}
    - {tool: preview_diff, args: {patch_id: "$match:Proposed patch ([0-9a-f]{40})"}}
    - {tool: apply_patch, args: {patch_id: "$match:Patch ([0-9a-f]{40})", diff_sha256: "$match:diff_sha256 ([0-9a-f]{64})"}}
    - {tool: verify_patch, args: {patch_id: "$match:Patch ([0-9a-f]{40}) applied", checks: [{name: gofmt}]}}
    - {answer: report}
`), 0o644))
	s := startSession(t, config)
	run := s.ok(jsonl.Command{Cmd: "submit", Task: "Reword the old line of README.md."}).Run
	approve := func(wantTool string, check func(preview string)) {
		t.Helper()
		st := s.ok(jsonl.Command{Cmd: "wait", Run: run}).Status
		if st.State != eventlog.WaitingForApproval {
			t.Fatalf("run %s (%s); want it waiting for approval of %s", st.State, st.Reason, wantTool)
		}
		c := st.Calls[len(st.Calls)-1]
		if !strings.HasSuffix(c.Alias, wantTool) {
			t.Fatalf("waiting on %s, want %s", c.Alias, wantTool)
		}
		if check != nil {
			check(c.Preview)
		}
		s.ok(jsonl.Command{Cmd: "approve", Run: run, Call: c.ID, Digest: c.Digest, Definition: c.Definition, By: "reviewer"})
	}
	approve("generate_patch", nil)
	approve("apply_patch", func(preview string) {
		for _, want := range []string{"--- preview_diff", "-An old line.", "+A reviewed line.", "diff_sha256"} {
			if !strings.Contains(preview, want) {
				t.Errorf("the person approving apply_patch is not shown %q:\n%s", want, preview)
			}
		}
		if head := strings.TrimSpace(gitfixture.Git(t, repo.Dir, "rev-parse", "main")); head != base {
			t.Errorf("main moved before approval")
		}
	})
	approve("verify_patch", nil)
	st := s.ok(jsonl.Command{Cmd: "wait", Run: run})
	want := "repo_generate_patch:succeeded repo_preview_diff:succeeded repo_apply_patch:succeeded repo_verify_patch:succeeded"
	if st.Status.State != eventlog.Completed || callStates(st) != want {
		t.Fatalf("run %s (%s); calls %s", st.Status.State, st.Status.Reason, callStates(st))
	}
	branches := gitfixture.Git(t, repo.Dir, "branch", "--list", "repo-mcp/*")
	if !strings.Contains(branches, "repo-mcp/") {
		t.Errorf("no branch points at the patch: %q", branches)
	}
	recs := s.ok(jsonl.Command{Cmd: "audit", Run: run}).Records
	if a := recs[2].Approval; a == nil || a.By != "reviewer" {
		t.Errorf("the apply's audit record has no approval: %+v", recs[2])
	}
	s.close()
	checkAuditJoins(t, recs, serverAudit, 5)
	checkOrigin(t, filepath.Join(state, "runs", run, "events.jsonl"), bin)
}

// checkAuditJoins checks that the harness's audit and the server's meet by
// request_id: each of the want records (the model's calls and the preview
// the harness fetched itself) names the request_id it sent and the one
// the server's result named, the same, and the server's audit log has
// one line for each.
func checkAuditJoins(t *testing.T, recs []audit.Record, serverAudit string, want int) {
	t.Helper()
	data, err := os.ReadFile(serverAudit)
	if err != nil {
		t.Fatal(err)
	}
	server := map[string]string{} // request_id -> tool
	for line := range strings.Lines(string(data)) {
		var l struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
			Tool      string `json:"tool"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "tool call" {
			server[l.RequestID] = l.Tool
		}
	}
	harnessCalls := 0
	for _, r := range recs {
		if r.By == "harness" {
			harnessCalls++
		}
		if r.RequestID == "" || r.ServerRequestID != r.RequestID {
			t.Errorf("record %s (%s): request_id %q, server's %q; want both, equal", r.Call, r.Tool, r.RequestID, r.ServerRequestID)
			continue
		}
		if tool := server[r.RequestID]; tool != r.Tool {
			t.Errorf("record %s: the server's audit has %q for request_id %s; want %s", r.Call, tool, r.RequestID, r.Tool)
		}
	}
	if len(recs) != want || len(server) != want || harnessCalls != 1 {
		t.Errorf("%d harness records (%d the harness's own), %d server audit lines; want %d, 1 and %d", len(recs), harnessCalls, len(server), want, want)
	}
}

// checkOrigin checks that run_created says where the server's tools come
// from: the command the harness started and what the server said it is.
func checkOrigin(t *testing.T, events, bin string) {
	t.Helper()
	evs, err := eventlog.Read(events)
	if err != nil {
		t.Fatal(err)
	}
	var d eventlog.RunData
	if len(evs) == 0 || evs[0].Type != eventlog.RunCreated || evs[0].Decode(&d) != nil {
		t.Fatalf("the first event is not run_created: %+v", evs)
	}
	if len(d.Servers) != 1 {
		t.Fatalf("run_created servers = %+v; want one", d.Servers)
	}
	o := d.Servers[0]
	if o.Source != "mcp.repo" || len(o.Command) == 0 || o.Command[0] != bin || o.Name != "repo-mcp" || o.Protocol == "" {
		t.Errorf("run_created servers[0] = %+v; want mcp.repo, its command, name repo-mcp and a protocol version", o)
	}
}
