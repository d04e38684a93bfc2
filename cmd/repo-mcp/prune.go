package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/workspace"
)

const pruneUsage = "usage: repo-mcp prune [--config FILE] [--workspace ID=PATH]... --older-than DURATION [--dry-run]\n"

const pruneHelp = pruneUsage + `
Deletes the proposals of generate_patch that were never applied and whose
history's newest event (a proposal, an apply attempt) is older than
DURATION, in the workspaces given as serve takes them. Kept are patches
with an apply record, patches without a history (proposed before repo-mcp
kept histories: their age is unknown), and every patch of a read-only
workspace. DURATION is a Go duration (36h) or days (30d, 1d12h).

Each pruned patch is a line "workspace patch_id age" on stdout, and each
workspace a summary line; errors go to stderr. Exit status 1 means some
patch or workspace failed, 2 a usage error. Only the refs are deleted: the
objects stay in the repository until git gc collects them.

`

// pruneConfig is what the prune flags say.
type pruneConfig struct {
	serve     serveConfig // the workspaces, as serve reads them
	olderThan time.Duration
	dryRun    bool
}

// parsePrune reads the prune flags. Asked for help, it writes the help to
// stdout and returns flag.ErrHelp; for a usage error, it writes the error
// and the usage line to stderr and returns errUsage.
func parsePrune(args []string, stdout, stderr io.Writer) (*pruneConfig, error) {
	var c pruneConfig
	fs := flag.NewFlagSet("prune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // below, as help or as a usage error
	fs.Func("workspace", "a workspace as ID=PATH (repeatable)", func(v string) error {
		if id, path, ok := strings.Cut(v, "="); !ok || id == "" || path == "" {
			return fmt.Errorf("want ID=PATH, got %q", v)
		}
		c.serve.workspaces = append(c.serve.workspaces, v)
		return nil
	})
	fs.StringVar(&c.serve.configFile, "config", "", "YAML configuration `file`")
	fs.Func("older-than", "prune patches whose newest event is older than `duration` (required)", func(v string) error {
		d, err := parseAge(v)
		c.olderThan = d
		return err
	})
	fs.BoolVar(&c.dryRun, "dry-run", false, "say what would be pruned, and delete nothing")
	problem := ""
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, pruneHelp)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil, err
	case err != nil: // the flag package has said what
	case fs.NArg() > 0:
		problem = fmt.Sprintf("unexpected argument %q", fs.Arg(0))
	case len(c.serve.workspaces) == 0 && c.serve.configFile == "":
		problem = "give the workspaces with --config or --workspace"
	case c.olderThan == 0:
		problem = "--older-than is required"
	default:
		return &c, nil
	}
	if problem != "" {
		fmt.Fprintln(stderr, "prune:", problem)
	}
	fmt.Fprint(stderr, pruneUsage+"(repo-mcp prune -h says more)\n")
	return nil, errUsage
}

// parseAge reads a positive Go duration, or days with an optional Go
// duration after them ("30d", "1d12h").
func parseAge(s string) (time.Duration, error) {
	var days int64
	rest := s
	if before, after, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.ParseInt(before, 10, 32)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want a duration such as 36h or 30d, got %q", s)
		}
		days, rest = n, after
	}
	d := time.Duration(0)
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil || days > 0 && d < 0 {
			return 0, fmt.Errorf("want a duration such as 36h or 30d, got %q", s)
		}
	}
	d += time.Duration(days) * 24 * time.Hour
	if d <= 0 {
		return 0, fmt.Errorf("the duration must be positive, got %q", s)
	}
	return d, nil
}

// formatAge writes an age as parseAge reads it, to the hour past a day
// and to the second below.
func formatAge(d time.Duration) string {
	const day = 24 * time.Hour
	if d < day {
		return d.Truncate(time.Second).String()
	}
	s := strconv.FormatInt(int64(d/day), 10) + "d"
	if h := (d % day) / time.Hour; h > 0 {
		s += strconv.FormatInt(int64(h), 10) + "h"
	}
	return s
}

// prune runs the prune command and returns its exit status.
func prune(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parsePrune(args, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	cfg, err := loadConfig(&c.serve)
	if err != nil {
		fmt.Fprintln(stderr, "repo-mcp prune:", err)
		return 1
	}
	// The operator prunes every workspace, whoever the policies let in.
	cfg.Policies = nil
	reg, err := workspace.Open(cfg.Config, workspace.Options{Logger: slog.New(slog.NewTextHandler(stderr, nil))})
	if err != nil {
		fmt.Fprintln(stderr, "repo-mcp prune:", err)
		return 1
	}
	defer reg.Close()
	opts := patch.PruneOptions{OlderThan: c.olderThan, DryRun: c.dryRun, Now: time.Now()}
	status := 0
	for _, wc := range cfg.Workspaces {
		if !pruneWorkspace(ctx, reg, wc, opts, stdout, stderr) {
			status = 1
		}
	}
	return status
}

// pruneWorkspace prunes one workspace and prints what it did; it reports
// whether everything went well.
func pruneWorkspace(ctx context.Context, reg *workspace.Registry, wc workspace.WorkspaceConfig, opts patch.PruneOptions, stdout, stderr io.Writer) bool {
	if wc.ReadOnly {
		fmt.Fprintf(stdout, "%s: read-only, left alone\n", wc.ID)
		return true
	}
	ws, err := reg.Workspace(workspace.Access{Identity: reg.Options().Operator, Action: workspace.ActionApply}, wc.ID)
	if err != nil {
		fmt.Fprintf(stderr, "repo-mcp prune: workspace %s: %v\n", wc.ID, err)
		return false
	}
	results, err := patch.Prune(ctx, ws, opts)
	counts := map[patch.Verdict]int{}
	for _, r := range results {
		counts[r.Verdict]++
		switch r.Verdict {
		case patch.Pruned:
			fmt.Fprintf(stdout, "%s %s %s\n", wc.ID, r.PatchID, formatAge(r.Age))
		case patch.PruneFailed:
			fmt.Fprintf(stderr, "repo-mcp prune: workspace %s: patch %s: %v\n", wc.ID, r.PatchID, r.Err)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "repo-mcp prune: workspace %s: %v\n", wc.ID, err)
	}
	pruned := "pruned"
	if opts.DryRun {
		pruned = "would prune"
	}
	fmt.Fprintf(stdout, "%s: %s %d; kept %d applied, %d fresh, %d of unknown age, %d changed meanwhile; %d failed\n",
		wc.ID, pruned, counts[patch.Pruned], counts[patch.KeptApplied], counts[patch.KeptFresh],
		counts[patch.KeptAgeUnknown], counts[patch.KeptChanged], counts[patch.PruneFailed])
	return err == nil && counts[patch.PruneFailed] == 0
}
