package gonav

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Options configure the service.
type Options struct {
	// CacheDir keeps exports under CacheDir/exports, the packages'
	// type information (the repository's with their indexes) under
	// CacheDir/types-v5, and go list's listings under CacheDir/lists-v1;
	// empty means a temporary directory for exports, removed at Close,
	// and type information and listings kept in memory only.
	CacheDir string
	// Logger receives load progress and warnings. Default: discard.
	Logger *slog.Logger
	// Verify configures the sandbox go list runs in, as verify_patch's
	// checks do (SelfHelper, Unconfined...).
	Verify verify.Options
	// Workers type-check packages at once. Default GOMAXPROCS.
	Workers int
	// MaxFileBytes is the size above which a Go file is left out (its
	// package is then not fully typed). Default 8 MiB.
	MaxFileBytes int64
	// Programs is how many revisions stay loaded. Default 3.
	Programs int
	// Exports is how many exports stay on disk. Default 8.
	Exports int
	// CallTimeout bounds a call, the first load of a revision included.
	// Default 10 minutes: loading a large repository on a busy machine
	// takes minutes, and progress keeps the client waiting. A call that
	// gives up leaves the load running for the next.
	CallTimeout time.Duration
}

// Defaults.
const (
	DefaultMaxFileBytes = 8 << 20
	DefaultLimit        = 100
	maxLimit            = 1000
	maxDepth            = 4
)

// Service answers go_navigate: it keeps loaded programs by export, and
// the type-checked packages they share.
type Service struct {
	reg     *workspace.Registry
	checker *verify.Checker
	log     *slog.Logger
	opts    Options
	dir     string // exports
	tempDir bool   // dir is removed at Close
	loader  *loader
	lists   *listCache
	group   singleflight.Group
	// lastExport lets an export link the files of the one before.
	lastExport lastExport

	mu    sync.Mutex
	progs []*loaded // most recent last
	loads int       // programs loaded, for tests of the singleflight
	// beforePrepare and beforeIndexRest, when not nil, run before a
	// program's background builds (see prepareQueries and
	// indexInBackground): tests hold the builds with them.
	beforePrepare   func(context.Context)
	beforeIndexRest func(context.Context)
	// beforeLoad, when not nil, runs as a load starts; waiting counts
	// the calls waiting for a load: tests hold a load and see who waits.
	beforeLoad func(context.Context)
	waiting    atomic.Int32
}

// loaded is a program and what its load cost.
type loaded struct {
	key  string
	prog *program
	dur  time.Duration
}

// New returns a service reading through reg.
func New(reg *workspace.Registry, opts Options) (*Service, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.Programs <= 0 {
		opts.Programs = 3
	}
	if opts.Exports <= 0 {
		opts.Exports = 8
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 10 * time.Minute
	}
	checker, err := verify.New(opts.Verify)
	if err != nil {
		return nil, err
	}
	sv := &Service{reg: reg, checker: checker, log: opts.Logger, opts: opts, lists: &listCache{max: opts.Programs, store: listStore{log: opts.Logger}}}
	sv.loader = &loader{fset: token.NewFileSet(), cache: newUnitCache(), store: newTypeStore("", opts.Logger), tables: &posTables{}, log: opts.Logger, workers: opts.Workers, maxFileBytes: opts.MaxFileBytes}
	if opts.CacheDir != "" {
		sv.dir = filepath.Join(opts.CacheDir, "exports")
		sv.loader.store.dir = filepath.Join(opts.CacheDir, typesDirName)
		sv.lists.store.dir = filepath.Join(opts.CacheDir, listsDirName)
	}
	return sv, nil
}

// Close ends the programs' background builds, waits for the type
// information being written, and removes a
// temporary export directory.
func (sv *Service) Close() error {
	sv.mu.Lock()
	for _, l := range sv.progs {
		l.prog.stop()
	}
	sv.mu.Unlock()
	sv.loader.store.wait()
	if sv.tempDir {
		verify.RemoveAll(sv.dir)
	}
	return nil
}

// register adds go_navigate to s.
func (sv *Service) register(s *server.Server) error {
	return server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound},
		Name:   "go_navigate",
		Title:  "Navigate Go code by type",
		Description: "Type-checked Go navigation at a revision (default HEAD): definition, references (with the enclosing " +
			"function), implementations (types of an interface, interfaces of a type, and their methods), callers and " +
			"callees (static call graph, bounded depth), or package_api (a package's exported API like go doc). Name the " +
			"symbol as search_symbol does (pkg.Name, pkg.Type.Method, (*pkg.T).M) or by file, line and column; an " +
			"ambiguous name answers with candidates. Results: file, line, column, the line's text, kind, package, sorted " +
			"and paged; precision says whether the packages read type-checked. The first call on a revision loads it (seconds).",
		Effect:         server.ReadOnly,
		Family:         string(toolkit.FamilyNavigate),
		Action:         string(workspace.ActionSearch),
		MaxResultBytes: 4 << 20,
		Timeout:        sv.opts.CallTimeout,
		Comments:       toolkit.Comments(goComments()),
	}, sv.navigate)
}

// program returns the loaded program of a snapshot, loading it once
// however many calls ask at the same time; hint and want are the
// indexHint and loadWants of the call that starts the load. The program
// may lack packages another call's query reads: every query
// ensures what it reads first (program.ensure), so a call that waited
// for another's load answers as on the whole program.
func (sv *Service) program(ctx context.Context, req *server.Request, snap *workspace.Snapshot, key string, hint, want func(*node) bool) (*loaded, error) {
	if l := sv.cached(key); l != nil {
		return &loaded{key: key, prog: l.prog}, nil
	}
	ch := sv.group.DoChan(key, func() (any, error) {
		// The load outlives a caller that gives up: others may wait on
		// it, and the next call finds it done.
		return sv.load(context.WithoutCancel(ctx), req, snap, key, hint, want)
	})
	sv.waiting.Add(1)
	defer sv.waiting.Add(-1)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*loaded), nil
	}
}

func (sv *Service) cached(key string) *loaded {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	for i, l := range sv.progs {
		if l.key == key {
			sv.progs = append(slices.Delete(sv.progs, i, i+1), l)
			return l
		}
	}
	return nil
}

// load exports the snapshot, lists its packages in the sandbox and
// type-checks them.
func (sv *Service) load(ctx context.Context, req *server.Request, snap *workspace.Snapshot, key string, hint, want func(*node) bool) (*loaded, error) {
	if sv.beforeLoad != nil {
		sv.beforeLoad(ctx)
	}
	start := time.Now()
	report := func(done, total int, msg string) {
		req.Progress(float64(done), float64(total), msg)
	}
	report(0, 0, "exporting the revision")
	lay := layoutOf(ctx, snap)
	dir, files, err := sv.export(ctx, snap, key, lay)
	if err != nil {
		return nil, err
	}
	exported := time.Now()
	report(0, 0, "listing packages (go list, in the sandbox)")
	r := lay.roots(dir, sv.checker)
	sums := newFileSums(lay.treeDir(dir), files)
	listed, err := sv.lists.list(ctx, sv.checker, dir, lay, snap.HostPaths(), sums.blobs)
	listFailed := ""
	var le *ListError
	if errors.As(err, &le) {
		listFailed = le.Error()
		sv.log.Warn("go_navigate: go list failed; navigation is syntactic", "revision", snap.Revision().SHA, "error", le.Why)
		listed, err = listDirectories(lay.srcDir(dir))
	}
	if err != nil {
		return nil, server.Errorf(server.Internal, "listing the packages failed").Wrap(err)
	}
	listedAt := time.Now()
	ld := *sv.loader
	ld.indexNow = hint
	// The loader's workers report as each package is checked, at once.
	var (
		mu   sync.Mutex
		last time.Time
	)
	ld.progress = func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) > 250*time.Millisecond || done == total {
			last = time.Now()
			report(done, total, fmt.Sprintf("type-checking packages: %d of %d", done, total))
			sv.log.Debug("go_navigate: loading", "request_id", req.ID, "done", done, "total", total)
		}
	}
	prog, err := ld.load(ctx, listed, r, sums, want)
	if err != nil {
		return nil, err
	}
	prog.listFailed = listFailed
	prog.prepareQueries(sv.beforePrepare)
	l := &loaded{key: key, prog: prog, dur: time.Since(start)}
	sv.mu.Lock()
	sv.loads++
	sv.progs = append(sv.progs, l)
	if drop := len(sv.progs) - sv.opts.Programs; drop > 0 {
		for _, old := range sv.progs[:drop] {
			old.prog.stop()
		}
		sv.progs = slices.Delete(sv.progs, 0, drop)
	}
	sv.mu.Unlock()
	sv.log.Info("go_navigate: loaded", "revision", snap.Revision().SHA, "packages", prog.total, "checked", prog.checked, "deferred", prog.lazy.left.Load(), "duration", l.dur,
		"export", exported.Sub(start), "list", listedAt.Sub(exported), "check", time.Since(listedAt))
	return l, nil
}

// exportOptions leave the secret fixtures out of go_navigate's exports:
// nothing is run on them, and their files' lines are shown to the caller;
// and the testdata directories, which the load does not read
// (exportskip.go).
// A function, not a package variable, which any code of the package
// could change for every later export.
func exportOptions() workspace.ExportOptions {
	return workspace.ExportOptions{SecretFixtures: false, Skip: isTestdata, SkipRule: skipRule}
}

// export returns the directory holding the snapshot's export, writing it
// unless an earlier call did; the tree is in lay.treeDir of it. When
// this call wrote it, files are the files it holds.
func (sv *Service) export(ctx context.Context, snap *workspace.Snapshot, key string, lay layout) (string, map[string]workspace.ExportedFile, error) {
	if err := sv.exportsDir(); err != nil {
		return "", nil, err
	}
	final := filepath.Join(sv.dir, key)
	if _, err := os.Stat(final); err == nil {
		now := time.Now()
		os.Chtimes(final, now, now) // the most recently used survive pruning
		return final, nil, nil
	}
	tmp, err := os.MkdirTemp(sv.dir, "tmp-")
	if err != nil {
		return "", nil, server.Errorf(server.Internal, "making the export directory failed").Wrap(err)
	}
	if err := os.MkdirAll(lay.treeDir(tmp), 0o755); err != nil {
		verify.RemoveAll(tmp)
		return "", nil, server.Errorf(server.Internal, "making the export directory failed").Wrap(err)
	}
	opts, made := sv.lastExport.options(snap.Workspace().ID(), exportOptions())
	if _, err := snap.Export(ctx, lay.treeDir(tmp), opts); err != nil {
		verify.RemoveAll(tmp)
		return "", nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		verify.RemoveAll(tmp) // another process made it first
		if _, serr := os.Stat(final); serr != nil {
			return "", nil, server.Errorf(server.Internal, "keeping the export failed").Wrap(err)
		}
	}
	files := made(lay.treeDir(final))
	sv.pruneExports()
	return final, files, nil
}

func (sv *Service) exportsDir() error {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.dir == "" {
		dir, err := os.MkdirTemp(sv.checker.TempDir(), "repo-mcp-gonav-")
		if err != nil {
			return server.Errorf(server.Internal, "making the export directory failed").Wrap(err)
		}
		sv.dir, sv.tempDir = dir, true
	}
	return os.MkdirAll(sv.dir, 0o755)
}

// pruneExports removes the least recently used exports past the limit.
func (sv *Service) pruneExports() {
	entries, err := os.ReadDir(sv.dir)
	if err != nil {
		return
	}
	type export struct {
		path string
		used time.Time
	}
	var all []export
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() && len(e.Name()) == 64 {
			all = append(all, export{filepath.Join(sv.dir, e.Name()), info.ModTime()})
		}
	}
	slices.SortFunc(all, func(a, b export) int { return b.used.Compare(a.used) })
	for _, e := range all[min(len(all), sv.opts.Exports):] {
		verify.RemoveAll(e.path)
	}
}
