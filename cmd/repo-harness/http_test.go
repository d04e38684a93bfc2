package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// The seed's task through the harness against repo-mcp over Streamable
// HTTP, with a bearer token the configuration names only as ${REPO_MCP_TOKEN}:
// the read-only calls succeed, and the token appears nowhere in the state.
func TestSeedTaskRepoMCPOverHTTP(t *testing.T) {
	bin := repoMCP(t)
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md": gitfixture.Text("# Fixture\n\nThis repository is served over HTTP. The harness reads it with a token. It has three sentences.\n"),
	})
	out, err := exec.Command(bin, "token", "alice").Output()
	must(t, err)
	m := regexp.MustCompile(`(?s)^(rmcp_\S+)\n.*\ntokens:\n((?:  .*\n)+)$`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("repo-mcp token alice printed:\n%s", out)
	}
	state := t.TempDir()
	serverConfig := filepath.Join(state, "repo-mcp.yaml")
	must(t, os.WriteFile(serverConfig, []byte(fmt.Sprintf(
		"workspaces:\n  - id: repo\n    root: %q\npolicies:\n  - identity: alice\n    workspaces: [repo]\n    actions: [read]\ntokens:\n%s", repo.Dir, m[2])), 0o600))
	url := peers.StartHTTP(t, bin, "serve", "--http", "127.0.0.1:0", "--index-cache", "off", "--config", serverConfig)
	t.Setenv("REPO_MCP_TOKEN", m[1]) // the harness inherits it

	config := filepath.Join(state, "harness.yaml")
	must(t, os.WriteFile(config, []byte(`state_dir: `+state+`
servers:
  repo:
    url: `+url+`
    headers:
      Authorization: "Bearer ${REPO_MCP_TOKEN}"
    workspace: `+repo.Dir+`
    approve: first_use
    tools:
      list_files: {effect: read_only, paths: [path]}
      read_file: {effect: read_only, paths: [path]}
model:
  kind: scripted
  args: {workspace_id: repo}
`), 0o644))
	s := startSession(t, config)
	seedTask(t, s, state, "repo", "This repository is served over HTTP. The harness reads it with a token. It has three sentences.")
	s.close()
	filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), m[1]) {
				t.Errorf("%s holds the token", path)
			}
		}
		return nil
	})
	if strings.Contains(s.stderr.String(), m[1]) {
		t.Errorf("the harness's stderr holds the token:\n%s", s.stderr)
	}
}
