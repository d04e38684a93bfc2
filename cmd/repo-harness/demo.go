package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
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
		var ws string
		if ws, err = filepath.Abs(*workspace); err == nil {
			if bin, lookErr := exec.LookPath("repo-mcp"); lookErr == nil && !*local {
				cfg, err = config.Parse(fmt.Appendf(nil, demoRepoMCP, bin, "repo="+ws, ws), ws)
			} else {
				fmt.Fprintln(stdout, "repo-mcp is not on PATH (go install ./cmd/repo-mcp) or --local is set: the demo uses the harness's built-in source")
				cfg, err = config.Parse(fmt.Appendf(nil, demoConfig, ws), ws)
			}
		}
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
	h, err := harness.New(ctx, harness.Options{Config: cfg, Model: m, Observe: printCalls(stdout)})
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
			fmt.Fprintf(stdout, "tool:  %-24s %s.%s (%s)\n", e.Alias, e.Source, e.Tool, e.Effect)
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
	fmt.Fprintf(stdout, "\nsummary:\n  %s\n\nrun %s %s", st.Answer, st.Run, st.State)
	if st.Reason != "" {
		fmt.Fprintf(stdout, " (%s)", st.Reason)
	}
	fmt.Fprintf(stdout, "\nlog:   %s\naudit: repo-harness log --state %s %s\n", st.Log, cfg.StateDir, st.Run)
	if st.State != eventlog.Completed {
		return fmt.Errorf("run %s ended %s", st.Run, st.State)
	}
	return nil
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
		line := fmt.Sprintf("call %-3s %s.%s %s -> %s", ev.Call, orDash(p.Source), orDash(p.Tool), p.Summary, d.State)
		if d.Outcome == "answered" {
			line += fmt.Sprintf(" (%d bytes in %.1f ms, artifact %s)", d.ResultBytes, d.DurationMS, strings.TrimPrefix(d.Artifact, "sha256:")[:12])
		} else if d.Reason != "" {
			line += ": " + d.Reason
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
