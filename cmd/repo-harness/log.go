package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/repo-mcp/repo-mcp/harness/audit"
	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// showLog prints the audit table of a run, or the list of runs.
func showLog(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, "print the records as JSON lines")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	state := c.state
	if state == "" && c.config != "" {
		cfg, err := c.load()
		if err != nil {
			return err
		}
		state = cfg.StateDir
	}
	if state == "" {
		state = config.DefaultStateDir()
	}
	runs := filepath.Join(state, "runs")
	if fs.NArg() == 0 {
		return listRuns(runs, stdout)
	}
	recs, err := audit.Run(runs, fs.Arg(0))
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	return audit.Format(stdout, recs)
}

func listRuns(dir string, w io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATE\tTASK")
	for _, de := range entries {
		events, err := eventlog.Read(filepath.Join(dir, de.Name(), "events.jsonl"))
		if err != nil {
			continue
		}
		var task, state string
		for _, ev := range events {
			switch ev.Type {
			case eventlog.RunCreated:
				var d eventlog.RunData
				ev.Decode(&d)
				task = d.Task
			case eventlog.RunState:
				var d eventlog.StateData
				ev.Decode(&d)
				state = d.State
			}
		}
		task = visible.Line(task)
		if len(task) > 60 {
			task = strings.ToValidUTF8(task[:57], "") + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", de.Name(), state, task)
	}
	return tw.Flush()
}
