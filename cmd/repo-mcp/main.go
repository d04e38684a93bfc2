// Command repo-mcp serves Git repositories to AI hosts over the Model
// Context Protocol.
//
// Usage:
//
//	repo-mcp serve [--workspace ID=PATH]... [--config FILE] [--http ADDR]
//	               [--audit-log FILE] [--read-only] [--identity NAME] ...
//	repo-mcp prune --older-than D delete the proposals never applied that are older than D
//	repo-mcp token IDENTITY      make a bearer token for calls over HTTP
//	repo-mcp tools               list the tools: name, effect, description
//	repo-mcp schemas [--check]   write (or check) schemas/<tool>.{input,output}.json
//	repo-mcp version
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
//go:generate go run . schemas --dir ../../schemas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

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

const usage = `usage:
  repo-mcp serve [--workspace ID=PATH]... [--config FILE] [--http ADDR [--allow-remote] [--allowed-host NAME]...]
                 [--audit-log FILE] [--read-only] [--identity NAME]
  repo-mcp prune [--config FILE] [--workspace ID=PATH]... --older-than DURATION [--dry-run]
  repo-mcp token IDENTITY
  repo-mcp tools
  repo-mcp schemas [--dir DIR] [--check]
  repo-mcp version
`

// run dispatches a subcommand. Only serve touches stdin/stdout.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
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
		return listTools(rest, os.Stdout)
	case "schemas":
		return schemas(rest, os.Stdout)
	case "version":
		fmt.Fprintln(os.Stdout, "repo-mcp", version())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(os.Stdout, usage)
		return nil
	default:
		fmt.Fprintf(stderr, "repo-mcp: unknown command %q\n%s", cmd, usage)
		return errUsage
	}
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
