package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/user"
	"strings"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// runTask carries out one task, asking the person at the terminal for
// every approval and every reconciliation.
func runTask(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c common
	c.register(fs)
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	task := strings.Join(fs.Args(), " ")
	if task == "" {
		fmt.Fprint(stderr, "run: a task is required\n"+usage)
		return errUsage
	}
	cfg, err := c.load()
	if err != nil {
		return err
	}
	h, err := harness.New(ctx, harness.Options{Config: cfg, Observe: printCalls(stdout), Logger: logger(stderr)})
	if err != nil {
		return err
	}
	defer h.Close()
	if k := cfg.Model.Kind; k == "" || k == "scripted" {
		fmt.Fprintln(stdout, "model: scripted (offline): it follows the plan in the configuration and ignores the task given here; configure model.kind anthropic or openai for a model that reads it")
	}
	if p := h.PendingTools(); len(p) > 0 {
		fmt.Fprintf(stdout, "%d tool definitions wait for approval and are not offered: see repo-harness tools --config %s\n", len(p), c.config)
	}
	id, err := h.Submit(ctx, task)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "run %s\n", id)
	in := bufio.NewReader(stdin)
	me := "terminal"
	if u, err := user.Current(); err == nil {
		me = u.Username
	}
	for {
		st, err := h.Wait(ctx, id)
		if err != nil { // interrupted by a signal
			h.Cancel(id)
			st, _ = h.Wait(context.Background(), id)
			return fmt.Errorf("run %s %s: %w", id, st.State, err)
		}
		switch st.State {
		case eventlog.WaitingForApproval:
			if err := askApprovals(h, st, in, stdout, me); err != nil {
				h.Cancel(id)
				return err
			}
		case eventlog.Interrupted:
			done, err := askReconcile(h, st, in, stdout, me)
			if err != nil || done {
				fmt.Fprintf(stdout, "run %s left interrupted; log: %s\n", id, st.Log)
				return err
			}
		default:
			fmt.Fprintf(stdout, "\n%s\n\nrun %s %s %s\nlog: %s\n", visible.Text(st.Answer), id, st.State, visible.Line(st.Reason), st.Log)
			if st.State != eventlog.Completed {
				return fmt.Errorf("run %s ended %s", id, st.State)
			}
			return nil
		}
	}
}

func ask(in *bufio.Reader, out io.Writer, prompt string) (string, error) {
	fmt.Fprint(out, prompt)
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return "", errors.New("no answer on the terminal")
	}
	return strings.ToLower(strings.TrimSpace(line)), nil
}

func askApprovals(h *harness.Harness, st harness.Status, in *bufio.Reader, out io.Writer, me string) error {
	for _, c := range st.Calls {
		if c.State != eventlog.WaitingForApproval {
			continue
		}
		fmt.Fprintf(out, "\ncall %s wants %s.%s (%s) with arguments (digest %s):\n%s\n", c.ID, c.Source, visible.Line(c.Tool), c.Effect, c.Digest, indent(visible.Text(c.Preview)))
		a, err := ask(in, out, "approve? [y/N] ")
		if err != nil {
			return err
		}
		if a == "y" || a == "yes" {
			err = h.Approve(st.Run, c.ID, c.Digest, c.Definition, me)
		} else {
			err = h.Deny(st.Run, c.ID, me, "refused at the terminal")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func askReconcile(h *harness.Harness, st harness.Status, in *bufio.Reader, out io.Writer, me string) (bool, error) {
	fmt.Fprintf(out, "\nrun interrupted: %s\n", visible.Line(st.Reason))
	asked := false
	for _, c := range st.Calls {
		if c.State != eventlog.Unknown {
			continue
		}
		asked = true
		fmt.Fprintf(out, "call %s %s.%s %s ended unknown: %s\n", c.ID, c.Source, visible.Line(c.Tool), visible.Line(c.Arguments), visible.Line(c.Reason))
		a, err := ask(in, out, "did it happen? [h]appened, [n]ot happened, [r]etry, [q]uit: ")
		if err != nil {
			return true, err
		}
		decision := map[string]string{"h": eventlog.Happened, "n": eventlog.NotHappened, "r": eventlog.Retry}[a]
		if decision == "" {
			return true, nil
		}
		if err := h.Reconcile(st.Run, c.ID, decision, me, "at the terminal"); err != nil {
			return true, err
		}
	}
	if !asked {
		return false, h.Resume(st.Run)
	}
	return false, nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
