package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/model"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// showTools prints the tool table and pending definitions, and pins them
// on request.
func showTools(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	var c common
	c.register(fs)
	approve := fs.String("approve", "", "pin the pending definition of `SOURCE.TOOL` (or all)")
	by := fs.String("by", "", "who approves (with --approve)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := c.load()
	if err != nil {
		return err
	}
	if *approve != "" && *by == "" {
		return errors.New("--approve needs --by")
	}
	h, err := harness.New(ctx, harness.Options{Config: cfg, Model: model.NewScripted(model.Plan{Name: "none"}), Logger: logger(stderr)})
	if err != nil {
		return err
	}
	defer h.Close()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ALIAS\tSOURCE\tTOOL\tEFFECT\tDEFINITION\tNOTE")
	for _, e := range h.Tools() {
		note := e.Mismatch
		if e.Disabled != "" {
			note = "disabled: " + e.Disabled
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", visible.Line(e.Alias), e.Source, visible.Line(e.Tool), e.Effect, e.Definition[:19], visible.Line(note))
	}
	tw.Flush()
	for _, p := range h.Problems() {
		fmt.Fprintf(stdout, "missing: %s.%s: %s\n", p.Source, visible.Line(p.Tool), visible.Line(p.Reason))
	}
	for _, p := range h.PendingTools() {
		fmt.Fprintf(stdout, "\n%s.%s: %s definition %s\n%s", p.Source, visible.Line(p.Tool), p.Kind, p.Hash, visible.Text(p.Diff))
		if *approve == "all" || *approve == p.Source+"."+p.Tool {
			if err := h.ApproveTool(p.Source, p.Tool, p.Hash, *by); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "approved by %s\n", *by)
		}
	}
	return nil
}
