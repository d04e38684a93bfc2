// Command patchserver serves the read and patch tools over stdio for the
// patch tools' binary-level tests: the real server package, workspace
// layer and tool packages in their own process, which a test can kill.
//
//	patchserver -workspace ID=PATH [-crash-after N] [-kill-after-move] [-gocache DIR]
//
// Workspaces allow the working tree. With -crash-after N, a worktree apply
// stops after its N-th file is in place, says "crash point" on stderr and
// waits to be killed: the test's way to crash the server mid-apply. With
// -kill-after-move, a branch apply kills its own process with SIGKILL
// between moving the branch and recording the apply.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/readfile"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

func main() {
	verify.RunHelper()
	var spaces []string
	flag.Func("workspace", "a workspace as ID=PATH (repeatable)", func(v string) error { spaces = append(spaces, v); return nil })
	crashAfter := flag.Int("crash-after", -1, "stop a worktree apply after this many files")
	killAfterMove := flag.Bool("kill-after-move", false, "SIGKILL the process after a branch apply's move, before its record")
	gocache := flag.String("gocache", "", "build cache of verify_patch")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, spaces, *crashAfter, *killAfterMove, *gocache); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, spaces []string, crashAfter int, killAfterMove bool, gocache string) error {
	protocol, err := server.TakeStdout()
	if err != nil {
		return err
	}
	var cfg workspace.Config
	for _, spec := range spaces {
		id, root, _ := strings.Cut(spec, "=")
		cfg.Workspaces = append(cfg.Workspaces, workspace.WorkspaceConfig{ID: id, Root: root, Worktree: true})
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	reg, err := workspace.Open(cfg, workspace.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer reg.Close()
	s := server.New(server.Info{Name: "patchserver", Version: "v0"}, server.Options{Logger: logger, Authorize: toolkit.Authorizer(reg)})
	opts := patch.Options{Logger: logger, Verify: verify.Options{SelfHelper: true, BuildCache: gocache}}
	if crashAfter >= 0 {
		opts.AfterWorktreeFile = func(i int) {
			if i+1 == crashAfter {
				fmt.Fprintln(os.Stderr, "crash point")
				select {}
			}
		}
	}
	if killAfterMove {
		opts.AfterBranchMove = func() {
			// SIGKILL on Unix: the process ends with no deferred work.
			if self, err := os.FindProcess(os.Getpid()); err == nil {
				self.Kill()
			}
			select {}
		}
	}
	if err := readfile.Register(s, reg, readfile.Options{}); err != nil {
		return err
	}
	if err := patch.Register(s, reg, opts); err != nil {
		return err
	}
	return s.Serve(ctx, os.Stdin, protocol)
}
