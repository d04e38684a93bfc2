// Command repo-mcp serves Git repositories to AI hosts over the Model
// Context Protocol.
//
// Usage:
//
//	repo-mcp serve [--workspace ID=PATH]... [--config FILE] [--http ADDR] [flags]
//	repo-mcp prune --older-than D delete the proposals never applied that are older than D
//	repo-mcp token IDENTITY      make a bearer token for calls over HTTP
//	repo-mcp tools               list the tools: name, effect, description
//	repo-mcp schemas [--check]   write (or check) schemas/<tool>.{input,output}.json
//	repo-mcp version
//	repo-mcp help                the commands, each with its line; COMMAND -h says more
//
// serve refuses to start without a workspace: a host launched with a bad
// configuration shows the error in its log rather than a server whose
// every call fails.
//
// serve speaks MCP over stdin/stdout unless --http is given. Over HTTP,
// when the --config file lists tokens or an OAuth issuer, every request
// must carry a bearer token (one of the tokens, or an access token the
// issuer made for the server) and its calls are made for the token's
// identity; without either they are made for --identity, and only a
// loopback address is served. Logs and the audit trail go to stderr (or
// --audit-log); stdout carries the protocol and nothing else.
package main

// The tools' doc comments are generated first: the schemas carry them, and
// go generate ./... would otherwise reach this package before the tools.
//go:generate go generate ../../tools/...
//go:generate go run . schemas --dir ../../schemas --go schemas_gen.go

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
)

func main() {
	// When started as verify_patch's sandbox helper, become it (this never
	// returns); otherwise this returns at once.
	verify.RunHelper()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil {
		var status exitStatus
		switch {
		case errors.Is(err, flag.ErrHelp):
			os.Exit(0) // asked for help, and given it
		case errors.As(err, &status):
			os.Exit(int(status))
		case !errors.Is(err, errUsage):
			fmt.Fprintln(os.Stderr, "repo-mcp:", err)
		}
		os.Exit(2)
	}
}

var errUsage = errors.New("usage")

// exitStatus asks main for an exit status other than 2; the command has
// already said why.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// commands are the subcommands, in the order help lists them.
var commands = []struct{ name, args, summary string }{
	{"serve", "[--workspace ID=PATH]... [--config FILE] [--http ADDR] [flags]", "serve the workspaces over MCP: stdio for a host to launch, or Streamable HTTP"},
	{"prune", "--older-than DURATION [--config FILE] [--workspace ID=PATH]... [--dry-run]", "delete the patch proposals never applied that are older than DURATION"},
	{"token", "IDENTITY", "make a bearer token for calls over HTTP, and the config entry for it"},
	{"tools", "", "list the tools: name, effect, description"},
	{"schemas", "[--dir DIR] [--check]", "write (or check) schemas/<tool>.{input,output}.json"},
	{"version", "", "print the version"},
	{"help", "", "print this help"},
}

// usage is the top-level help: each command with its line.
func usage() string {
	var b strings.Builder
	b.WriteString("repo-mcp serves Git repositories to AI hosts over the Model Context Protocol.\n\nusage: repo-mcp COMMAND [ARGS]\n\ncommands:\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	b.WriteString("\nrepo-mcp COMMAND -h says more about each.\n")
	return b.String()
}

// commandHelp is the first lines of a command's help: its usage line and
// what it does.
func commandHelp(name string) string {
	for _, c := range commands {
		if c.name == name {
			return fmt.Sprintf("usage: %s\n\n%s.\n", strings.TrimSpace("repo-mcp "+c.name+" "+c.args), strings.ToUpper(c.summary[:1])+c.summary[1:])
		}
	}
	return ""
}

// run dispatches a subcommand. Only serve touches stdin/stdout.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return errUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return serve(ctx, rest, stderr)
	case "prune":
		if status := prune(ctx, rest, os.Stdout, stderr); status != 0 {
			return exitStatus(status) // failures (1) and usage errors (2)
		}
		return nil
	case "token":
		return newToken(rest, os.Stdout, stderr)
	case "tools":
		return listTools(rest, os.Stdout, stderr)
	case "schemas":
		return schemas(rest, os.Stdout, stderr)
	case "version":
		fmt.Fprintln(os.Stdout, "repo-mcp", version())
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(os.Stdout, usage())
		return nil
	default:
		fmt.Fprintf(stderr, "repo-mcp: unknown command %q\n\n%s", cmd, usage())
		return errUsage
	}
}

// newFlagSet returns the flag set of a command, whose -h writes the
// command's help to stdout (and makes Parse return flag.ErrHelp, which
// exits 0) and whose errors go to stderr with a pointer to -h.
func newFlagSet(name string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // parseFlags says it all
	return fs
}

// parseFlags parses args with fs; asked for help, it writes the command's
// help and flags to stdout and returns flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandHelp(fs.Name()))
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(stdout, "\nflags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
		}
		return flag.ErrHelp
	}
	if err != nil {
		// The flag package has said why.
		fmt.Fprintf(fs.Output(), "(repo-mcp %s -h says more)\n", fs.Name())
		return errUsage
	}
	return nil
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
