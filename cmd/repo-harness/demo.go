package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// demoRepoMCP is the demo's configuration without --config when repo-mcp
// is on PATH: repo-mcp serving the workspace, reads only.
const demoRepoMCP = `
servers:
  repo:
    command: [%q, serve, --read-only, --index-cache, "off", --workspace, %q]
    inherit: [HOME, PATH]
    workspace: %q
    approve: first_use
    tools:
      list_files: {effect: read_only, paths: [path]}
      read_file: {effect: read_only, paths: [path]}
model:
  kind: scripted
  args: {workspace_id: repo}
`

// demoConfig is the demo's configuration without --config when repo-mcp
// is not on PATH (or with --local): the built-in source over the
// workspace, reads only. harness/examples holds more.
const demoConfig = `
local:
  workspace: %q
  tools:
    list_files: {effect: read_only}
    read_file: {effect: read_only}
model:
  kind: scripted
`

func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var c common
	c.register(fs)
	workspace := fs.String("workspace", ".", "the `dir` to work in (without --config)")
	local := fs.Bool("local", false, "use the built-in source even when repo-mcp is on PATH (without --config)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var (
		cfg *config.Config
		err error
	)
	if c.config != "" {
		cfg, err = c.load()
	} else {
		cfg, err = demoWorkspaceConfig(*workspace, *local, stdout)
		if err == nil {
			cfg.StateDir = config.DefaultStateDir()
			if c.state != "" {
				cfg.StateDir, err = filepath.Abs(c.state)
			}
		}
	}
	if err != nil {
		return err
	}
	if cfg.Model.Kind != "scripted" {
		return fmt.Errorf("the demo runs the scripted model; %s says %s", c.config, cfg.Model.Kind)
	}
	m, err := harness.ModelFromConfig(cfg.Model)
	if err != nil {
		return err
	}
	h, err := harness.New(ctx, harness.Options{Config: cfg, Model: m, Observe: printCalls(stdout), Logger: logger(stderr)})
	if err != nil {
		return err
	}
	defer h.Close()
	for _, p := range h.PendingTools() {
		fmt.Fprintf(stdout, "tool %s.%s is %s and waits for approval (repo-harness tools --config %s)\n", p.Source, p.Tool, p.Kind, c.config)
	}
	fmt.Fprintf(stdout, "model: %s (offline, deterministic: it follows a plan, it does not think)\n", m.Name())
	for _, e := range h.Tools() {
		if e.Disabled == "" {
			fmt.Fprintf(stdout, "tool:  %-24s %s.%s (%s)\n", visible.Line(e.Alias), e.Source, visible.Line(e.Tool), e.Effect)
		}
	}
	fmt.Fprintf(stdout, "task:  %s\n\n", model.DemoTask)
	id, err := h.Submit(ctx, model.DemoTask)
	if err != nil {
		return err
	}
	st, err := h.Wait(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nsummary:\n  %s\n\nrun %s %s", visible.Text(st.Answer), st.Run, st.State)
	if st.Reason != "" {
		fmt.Fprintf(stdout, " (%s)", visible.Line(st.Reason))
	}
	fmt.Fprintf(stdout, "\nlog:   %s\naudit: repo-harness log --state %s %s\n", st.Log, cfg.StateDir, st.Run)
	if st.State != eventlog.Completed {
		return fmt.Errorf("run %s ended %s", st.Run, st.State)
	}
	// The scripted model answers whatever it got: a summary of a listing
	// when the README could not be read. Say so rather than call it done.
	for _, call := range st.Calls {
		if call.State != eventlog.Succeeded {
			return fmt.Errorf("the demo's task was not carried out: call %s (%s.%s %s) ended %s: %s; the summary above is not of README.md",
				call.ID, call.Source, visible.Line(call.Tool), visible.Line(call.Arguments), call.State, visible.Line(call.Reason))
		}
	}
	return nil
}

// demoWorkspaceConfig is the demo's configuration without --config: repo-mcp
// over dir when it is on PATH (and dir a git repository), the built-in
// source otherwise. Each way, it says first and plainly what is missing,
// rather than let a server fail with the cause buried in its error.
func demoWorkspaceConfig(dir string, local bool, stdout io.Writer) (*config.Config, error) {
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: give the demo a repository with --workspace DIR", ws)
	}
	repo := isGitRepository(ws)
	if bin, lookErr := exec.LookPath("repo-mcp"); lookErr == nil && !local {
		if !repo {
			return nil, notRepository(ws)
		}
		return config.Parse(fmt.Appendf(nil, demoRepoMCP, bin, "repo="+ws, ws), ws)
	}
	fmt.Fprintln(stdout, "repo-mcp is not on PATH (go install ./cmd/repo-mcp) or --local is set: the demo uses the harness's built-in source")
	if !repo {
		fmt.Fprintf(stdout, "%s is not a git repository: the demo reads it as plain files\n", ws)
	}
	if st, err := os.Lstat(filepath.Join(ws, "README.md")); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s has no README.md, which the demo's task reads and summarizes; run it in a repository that has one, or name one with --workspace DIR", ws)
	}
	return config.Parse(fmt.Appendf(nil, demoConfig, ws), ws)
}

// isGitRepository reports whether dir is what repo-mcp serves: the top of a
// working tree (.git, a directory or a worktree's file) or a bare
// repository.
func isGitRepository(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// notRepository explains that dir is not a git repository, and what to do.
func notRepository(dir string) error {
	hint := "run the demo at the top of a clone (cd into one), name one with --workspace DIR, or add --local to read plain files with the harness's own tools"
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if isGitRepository(p) {
			hint = fmt.Sprintf("it is inside the repository %s: give --workspace %s, or add --local to read plain files with the harness's own tools", p, p)
			break
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	return fmt.Errorf("%s is not a git repository. The demo serves it with repo-mcp, which reads git repositories: %s", dir, hint)
}

// printCalls returns an observer that prints each call as it settles.
func printCalls(w io.Writer) func(eventlog.Event) {
	var mu sync.Mutex
	proposed := map[string]eventlog.CallData{}
	return func(ev eventlog.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Type != eventlog.CallState {
			return
		}
		var d eventlog.CallData
		if ev.Decode(&d) != nil {
			return
		}
		key := ev.Run + "/" + ev.Call
		if d.State == eventlog.Proposed {
			proposed[key] = d
			return
		}
		p := proposed[key]
		switch d.State {
		case eventlog.Executing, eventlog.Ready:
			return
		}
		line := fmt.Sprintf("call %-3s %s.%s %s -> %s", ev.Call, orDash(p.Source), orDash(visible.Line(p.Tool)), visible.Line(p.Summary), d.State)
		if d.Outcome == "answered" {
			line += fmt.Sprintf(" (%d bytes in %.1f ms, artifact %s)", d.ResultBytes, d.DurationMS, strings.TrimPrefix(d.Artifact, "sha256:")[:12])
		} else if d.Reason != "" {
			line += ": " + visible.Line(d.Reason)
		}
		fmt.Fprintln(w, line)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
