package main

import (
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

func TestExamplesParse(t *testing.T) {
	files, _ := filepath.Glob("../../harness/examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		if _, err := config.Load(f); err != nil {
			t.Error(err)
		}
	}
}

// demoOutput runs repo-harness demo with args and checks what it prints.
func demoOutput(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(harnessBin(t), append([]string{"demo", "--state", t.TempDir()}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("repo-harness demo: %v\n%s", err, out)
	}
	for _, want := range []string{"scripted:", "offline", "-> succeeded", "summary:", "completed", "log:", "events.jsonl", "audit: repo-harness log"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	return string(out)
}

func TestDemoLocal(t *testing.T) {
	f := newFixture(t, readTools, "")
	out := demoOutput(t, os.Environ(), "--local", "--workspace", f.ws)
	if !strings.Contains(out, "This repository exists so that the harness has something to read. It holds a README and a Go file.") {
		t.Errorf("no summary of the README:\n%s", out)
	}
}

// The same demo against a third-party server is a configuration change.
func TestDemoFilesystem(t *testing.T) {
	dir := peers.Dir(t)
	path := filepath.Dir(peers.Node(t)) + ":" + filepath.Join(dir, "node_modules", ".bin") + ":" + os.Getenv("PATH")
	out := demoOutput(t, append(os.Environ(), "PATH="+path), "--config", "../../harness/examples/filesystem.yaml")
	if !strings.Contains(out, "mcp.fs.read_text_file") || !strings.Contains(out, "repo-mcp") {
		t.Errorf("demo against server-filesystem:\n%s", out)
	}
}

// repoMCP builds repo-mcp, or skips until it serves the demo's tools.
func repoMCP(t *testing.T) string {
	t.Helper()
	bin := build(t, "github.com/repo-mcp/repo-mcp/cmd/repo-mcp")
	tools, err := exec.Command(bin, "tools").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tools), "list_files") || !strings.Contains(string(tools), "read_file") {
		t.Skip("repo-mcp does not serve list_files and read_file yet")
	}
	return bin
}

// The same demo against repo-mcp, once it serves list_files and read_file.
func TestDemoRepoMCP(t *testing.T) {
	bin := repoMCP(t)
	out := demoOutput(t, append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH")), "--config", "../../harness/examples/repo-mcp.yaml")
	if !strings.Contains(out, "mcp.repo.read_file") {
		t.Errorf("demo against repo-mcp:\n%s", out)
	}
}

// The seed's task over the JSONL protocol against repo-mcp serving this
// repository, configured as harness/examples/repo-mcp.yaml is.
func TestSeedTaskRepoMCP(t *testing.T) {
	bin := repoMCP(t)
	root, err := filepath.Abs("../..")
	must(t, err)
	state := t.TempDir()
	config := filepath.Join(state, "harness.yaml")
	must(t, os.WriteFile(config, []byte(`state_dir: `+state+`
servers:
  repo:
    command: [`+bin+`, serve, --workspace, "repo=`+root+`"]
    inherit: [HOME, PATH]
    workspace: `+root+`
    approve: first_use
    tools:
      list_files: {effect: read_only, paths: [path]}
      read_file: {effect: read_only, paths: [path]}
model:
  kind: scripted
  args: {workspace_id: repo}
`), 0o644))
	s := startSession(t, config)
	seedTask(t, s, state, "repo", "")
	s.close()
}

// Without --config, the demo goes through repo-mcp when it is on PATH.
func TestDemoFindsRepoMCP(t *testing.T) {
	bin := repoMCP(t)
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md": gitfixture.Text("# Fixture\n\nThis repository is served by repo-mcp. The demo reads it. It has three sentences.\n"),
	})
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	out := demoOutput(t, append(os.Environ(), "PATH="+path), "--workspace", repo.Dir)
	for _, want := range []string{"mcp.repo.read_file", "This repository is served by repo-mcp."} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
