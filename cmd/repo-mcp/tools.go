package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/history"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/readfile"
	"github.com/repo-mcp/repo-mcp/tools/repoinfo"
	"github.com/repo-mcp/repo-mcp/tools/searchsymbol"
	"github.com/repo-mcp/repo-mcp/tools/searchsymbol/goindex"
	"github.com/repo-mcp/repo-mcp/tools/searchtext"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// toolConfig is what the flags say about the tools.
type toolConfig struct {
	readOnly       bool
	indexCache     string
	warm           bool
	protected      []string
	verifyChecks   string
	verifyTimeout  time.Duration
	verifyFreshGoc bool
	maxProposals   int
	maxFailures    int
	hideEmails     bool

	verifyUnconfined []verify.Property
	verifyDisk       uint64
	verifyProcs      uint64
	verifyUIDs       [2]int // first uid and how many
}

func (c *toolConfig) flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.readOnly, "read-only", false, "register no tool that changes anything (no patch tools)")
	fs.StringVar(&c.indexCache, "index-cache", "default", "keep symbol and text indexes on disk in `dir` (\"default\": the user cache directory; \"off\": memory only)")
	fs.BoolVar(&c.warm, "warm", false, "index HEAD of every workspace at start, before the first search")
	fs.Func("protected", "a path `glob` whose change needs the apply action even to be proposed (repeatable; default .github/workflows/**)", func(v string) error {
		c.protected = append(c.protected, v)
		return nil
	})
	fs.IntVar(&c.maxProposals, "max-open-proposals", patch.DefaultMaxOpenProposals, "the proposals not applied one caller may have in a workspace (-1: no limit)")
	fs.IntVar(&c.maxFailures, "max-failed-applies", patch.DefaultMaxFailedApplies, "the failed applies of one caller kept on record in a workspace; over it, apply_patch is refused until repo-mcp prune clears them (-1: no limit)")
	fs.StringVar(&c.verifyChecks, "verify-checks", strings.Join(verify.DefaultChecks, ","), "the checks verify_patch may run, comma-separated")
	fs.DurationVar(&c.verifyTimeout, "verify-timeout", 5*time.Minute, "bound on each verify_patch check")
	fs.BoolVar(&c.hideEmails, "hide-emails", false, "leave authors' and committers' emails out of history and diff results")
	fs.BoolVar(&c.verifyFreshGoc, "verify-fresh-cache", false, "give every verify_patch run an empty Go build cache (slower; no cache shared between runs)")
	fs.Func("verify-unconfined", "let verify_patch run checks without these isolation `properties` where the platform cannot give them (comma-separated: uid, filesystem, pid, network, limits, or all); default none: such checks are refused", func(v string) error {
		ps, err := verify.ParseProperties(v)
		c.verifyUnconfined = append(c.verifyUnconfined, ps...)
		return err
	})
	fs.Uint64Var(&c.verifyDisk, "verify-disk", 2<<30, "bytes a verify_patch check may write (the size of its tmpfs, which holds its copy of the export)")
	fs.Uint64Var(&c.verifyProcs, "verify-procs", 1024, "processes and threads a verify_patch check may run")
	fs.Func("verify-uids", "the `range` FIRST-LAST of uids verify_patch checks run as when the server runs as root: each running check holds one of its own, so checks share no process limit (default 65536-65599; no user or service may hold them)", func(v string) error {
		first, last, ok := strings.Cut(v, "-")
		lo, err1 := strconv.Atoi(first)
		hi, err2 := strconv.Atoi(last)
		if !ok || err1 != nil || err2 != nil || lo <= 0 || hi < lo {
			return fmt.Errorf("want FIRST-LAST, two uids above 0, got %q", v)
		}
		c.verifyUIDs = [2]int{lo, hi - lo + 1}
		return nil
	})
}

// registerTools adds the repository tools to s, reading through reg (nil
// when the tools are only listed: their handlers then never run), and
// returns what to call at exit.
func registerTools(ctx context.Context, s *server.Server, reg *workspace.Registry, c *toolConfig, identity string, logger *slog.Logger) (func(), error) {
	for _, register := range []func(*server.Server, *workspace.Registry) error{repoinfo.Register, readfile.Register} {
		if err := register(s, reg); err != nil {
			return nil, err
		}
	}
	if err := history.Register(s, reg, history.Options{HideEmails: c.hideEmails}); err != nil {
		return nil, err
	}
	symbols := searchsymbol.New(reg, searchsymbol.Options{CacheDir: indexCacheDir(c.indexCache, logger), Logger: logger})
	if err := symbols.Register(s); err != nil {
		return nil, err
	}
	textDir := ""
	if reg != nil { // a listing of the tools touches no disk
		textDir = textCacheDir(c.indexCache, logger)
	}
	text, err := searchtext.New(reg, searchtext.Options{CacheDir: textDir, Logger: logger})
	if err != nil {
		symbols.Close()
		return nil, err
	}
	if err := text.Register(s); err != nil {
		return nil, err
	}
	if c.warm && reg != nil {
		go symbols.Warm(ctx, identity, reg.IDs(identity)...)
		go text.Warm(ctx, identity, reg.IDs(identity)...)
	}
	closeAll := func() {
		symbols.Close()
		text.Close()
	}
	if c.readOnly {
		return closeAll, nil
	}
	var checks []string
	if c.verifyChecks != "" {
		checks = strings.Split(c.verifyChecks, ",")
	}
	err = patch.Register(s, reg, patch.Options{
		Protected:        c.protected,
		Logger:           logger,
		MaxOpenProposals: c.maxProposals,
		MaxFailedApplies: c.maxFailures,
		Verify: verify.Options{
			Checks: checks, Timeout: c.verifyTimeout, FreshBuildCache: c.verifyFreshGoc,
			Unconfined: c.verifyUnconfined, DiskBytes: c.verifyDisk, MaxProcs: c.verifyProcs,
			UID: c.verifyUIDs[0], UIDCount: c.verifyUIDs[1],
			SelfHelper: true, // main calls verify.RunHelper
		},
	})
	return closeAll, err
}

// indexCacheDir turns the --index-cache flag into a directory ("" for
// memory only).
func indexCacheDir(flag string, logger *slog.Logger) string {
	switch flag {
	case "off":
		return ""
	case "default":
		dir, err := goindex.DefaultCacheDir()
		if err != nil {
			logger.Warn("no user cache directory; symbol indexes stay in memory", "error", err)
			return ""
		}
		return dir
	}
	return flag
}

// textCacheDir turns the --index-cache flag into the text index's
// directory ("" for memory only): beside the symbol index's by default,
// inside the named directory otherwise.
func textCacheDir(flag string, logger *slog.Logger) string {
	switch flag {
	case "off":
		return ""
	case "default":
		dir, err := os.UserCacheDir()
		if err != nil {
			logger.Warn("no user cache directory; text indexes stay in memory", "error", err)
			return ""
		}
		return filepath.Join(dir, "repo-mcp", "searchtext")
	}
	return filepath.Join(flag, "searchtext")
}
