package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/gonav"
	"github.com/repo-mcp/repo-mcp/tools/history"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/readfile"
	"github.com/repo-mcp/repo-mcp/tools/repoinfo"
	"github.com/repo-mcp/repo-mcp/tools/searchsymbol"
	"github.com/repo-mcp/repo-mcp/tools/searchsymbol/goindex"
	"github.com/repo-mcp/repo-mcp/tools/searchtext"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// toolConfig is what the flags say about the tools.
type toolConfig struct {
	readOnly       bool
	toolsets       string
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
	fs.BoolVar(&c.readOnly, "read-only", false, "serve no tool that changes anything: the read, search, history and navigate families of --toolsets at most")
	fs.StringVar(&c.toolsets, "toolsets", "", "the tool `families` to serve, comma-separated: read, search, history, navigate, propose, apply, verify, or all (default: the config file's toolsets, else all)")
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

// registerTools adds the repository tools of the families s serves to s,
// reading through reg (nil when the tools are only listed: their handlers
// then never run, and no index is opened). Every family registers in the
// same shape; s.Close releases what they hold.
func registerTools(s *server.Server, reg *workspace.Registry, c *toolConfig, identity string, logger *slog.Logger) error {
	warmAs := ""
	if c.warm {
		warmAs = identity
	}
	textDir, navDir := "", ""
	if reg != nil { // a listing of the tools touches no disk
		textDir = cacheSubdir(c.indexCache, "searchtext", logger)
		navDir = cacheSubdir(c.indexCache, "gonav", logger)
	}
	var checks []string
	if c.verifyChecks != "" {
		checks = strings.Split(c.verifyChecks, ",")
	}
	families := []func() error{
		func() error { return repoinfo.Register(s, reg, repoinfo.Options{}) },
		func() error { return readfile.Register(s, reg, readfile.Options{}) },
		func() error { return history.Register(s, reg, history.Options{HideEmails: c.hideEmails}) },
		func() error {
			return searchsymbol.Register(s, reg, searchsymbol.Options{CacheDir: indexCacheDir(c.indexCache, logger), Logger: logger, WarmAs: warmAs})
		},
		func() error {
			return searchtext.Register(s, reg, searchtext.Options{CacheDir: textDir, Logger: logger, WarmAs: warmAs})
		},
		func() error {
			return gonav.Register(s, reg, gonav.Options{
				CacheDir: navDir, Logger: logger,
				Verify: verify.Options{
					Unconfined: c.verifyUnconfined, DiskBytes: c.verifyDisk, MaxProcs: c.verifyProcs,
					UID: c.verifyUIDs[0], UIDCount: c.verifyUIDs[1],
					SelfHelper: true,
				},
			})
		},
		func() error {
			if !s.Serves(string(toolkit.FamilyPropose)) && !s.Serves(string(toolkit.FamilyApply)) && !s.Serves(string(toolkit.FamilyVerify)) {
				return nil // nothing to recover, no sandbox to prepare
			}
			return patch.Register(s, reg, patch.Options{
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
		},
	}
	for _, register := range families {
		if err := register(); err != nil {
			return errors.Join(err, s.Close())
		}
	}
	return nil
}

// families returns the tool families to serve: --toolsets, else the
// config file's toolsets, else all, without those that change anything
// under --read-only.
func (c *toolConfig) families(configured []string) ([]toolkit.Family, error) {
	list := c.toolsets
	if list == "" {
		list = strings.Join(configured, ",")
	}
	if list == "" {
		list = "all"
	}
	fs, err := toolkit.ParseFamilies(list)
	if err != nil {
		return nil, fmt.Errorf("--toolsets: %w", err)
	}
	if c.readOnly {
		fs = slices.DeleteFunc(fs, func(f toolkit.Family) bool { return !slices.Contains(toolkit.ReadOnlyFamilies(), f) })
	}
	return fs, nil
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

// cacheSubdir turns the --index-cache flag into the directory of one kind
// of index, name ("" for none on disk): beside the symbol index's by
// default, inside the named directory otherwise.
func cacheSubdir(flag, name string, logger *slog.Logger) string {
	switch flag {
	case "off":
		return ""
	case "default":
		dir, err := os.UserCacheDir()
		if err != nil {
			logger.Warn("no user cache directory; nothing of "+name+" is kept on disk", "error", err)
			return ""
		}
		return filepath.Join(dir, "repo-mcp", name)
	}
	return filepath.Join(flag, name)
}
