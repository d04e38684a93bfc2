// Command repo-harness runs an agent over MCP servers and its own local
// tools while keeping the allowlist, approvals, event log, artifacts and
// recovery to itself (see package harness).
//
// Usage:
//
//	repo-harness demo [--workspace DIR] [--config FILE] [--state DIR]
//	repo-harness run --config FILE [--state DIR] TASK
//	repo-harness jsonl --config FILE [--state DIR]
//	repo-harness log [--config FILE | --state DIR] [--json] [RUN]
//	repo-harness tools --config FILE [--state DIR] [--approve SOURCE.TOOL|all --by NAME]
//
// demo runs the seed's task (list the files, read README.md, summarize it
// in three sentences) with the scripted offline model, over the local
// source by default or whatever --config names (repo-mcp, say), and prints
// each call, the summary and where the log is. run carries out a task and
// asks for approvals on the terminal. jsonl speaks the line protocol of
// harness/PROTOCOL.md on stdin and stdout. log prints a run's audit table.
// tools shows the tool table and the definitions waiting for approval,
// with their differences, and pins them. Every command that builds a
// harness (all but log) holds the state directory while it runs; a second
// one on the same directory is refused. What a model or a server wrote is
// printed with its control, escape and bidi characters made visible.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "repo-harness:", visible.Text(err.Error()))
		}
		os.Exit(2)
	}
}

var errUsage = errors.New("usage")

const usage = `usage:
  repo-harness demo [--workspace DIR] [--config FILE] [--state DIR]
  repo-harness run --config FILE [--state DIR] TASK
  repo-harness jsonl --config FILE [--state DIR]
  repo-harness log [--config FILE | --state DIR] [--json] [RUN]
  repo-harness tools --config FILE [--state DIR] [--approve SOURCE.TOOL|all --by NAME]
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "demo":
		return demo(ctx, rest, stdout, stderr)
	case "run":
		return runTask(ctx, rest, stdin, stdout, stderr)
	case "jsonl":
		return serveJSONL(ctx, rest, stdin, stdout, stderr)
	case "log":
		return showLog(rest, stdout, stderr)
	case "tools":
		return showTools(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "repo-harness: unknown command %q\n%s", cmd, usage)
	return errUsage
}

// common holds the flags every command shares.
type common struct {
	config string
	state  string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "harness configuration `file` (YAML)")
	fs.StringVar(&c.state, "state", "", "state `dir`: runs, logs, artifacts, pins (default: the configuration's state_dir, or ~/.local/state/repo-harness)")
}

// load reads the configuration and applies --state.
func (c *common) load() (*config.Config, error) {
	if c.config == "" {
		return nil, errors.New("--config is required")
	}
	cfg, err := config.Load(c.config)
	if err != nil {
		return nil, err
	}
	if c.state != "" {
		if cfg.StateDir, err = filepath.Abs(c.state); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// logger reports what a person should know on stderr: a server left out,
// an allowlisted tool missing. Values a server or a model chose are quoted
// by the handler, so they cannot steer the terminal.
func logger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	return nil
}
