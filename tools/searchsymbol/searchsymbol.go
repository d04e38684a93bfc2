package searchsymbol

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/searchsymbol/goindex"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Options configure the service.
type Options struct {
	// CacheDir keeps indexes on disk, so that a new process answers without
	// parsing; empty means memory only.
	CacheDir string
	// Logger receives indexing warnings. Default: discard.
	Logger *slog.Logger
}

// Service is the state search_symbol keeps between calls: the indexer (with
// its caches) and a repository handle per workspace.
type Service struct {
	reg *workspace.Registry
	ix  *goindex.Indexer
	log *slog.Logger

	mu    sync.Mutex
	repos map[string]*repoHandle // by workspace id
}

// repoHandle is a workspace's repository as the indexer reads it. Reads
// through one handle are serialized: go-git's pack readers are not safe for
// concurrent use.
type repoHandle struct {
	mu    sync.Mutex
	repo  *git.Repository
	close func() error
}

// objectCacheBytes sizes each workspace's object cache while indexing.
const objectCacheBytes = 8 << 20

// New returns a service reading through reg.
func New(reg *workspace.Registry, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{
		reg:   reg,
		ix:    goindex.NewIndexer(goindex.IndexerOptions{CacheDir: opts.CacheDir, Logger: opts.Logger}),
		log:   opts.Logger,
		repos: make(map[string]*repoHandle),
	}
}

// Close releases the repository handles.
func (sv *Service) Close() error {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	var errs []error
	for id, h := range sv.repos {
		errs = append(errs, h.close())
		delete(sv.repos, id)
	}
	return errors.Join(errs...)
}

// Register adds search_symbol to s.
func (sv *Service) Register(s *server.Server) error {
	return server.Register(s, server.Tool{
		Name:  "search_symbol",
		Title: "Find Go declarations",
		Description: "Find where Go symbols are declared in a repository at a revision (default HEAD): packages, functions, " +
			"methods, types, fields, interface methods, constants and variables, with 1-based positions, signatures and the " +
			"first sentence of their docs. Queries: NewReader, bufio.NewReader, Reader.Read, (*Server).Serve, camel-case " +
			"initials (NR) or fuzzy (srvr). Ranked exact > prefix > initials > substring > fuzzy; paged with a cursor.",
		Effect:   server.ReadOnly,
		Action:   string(workspace.ActionSearch),
		Comments: toolkit.Comments(goComments()),
	}, sv.search)
}

// Warm builds the index of HEAD of each workspace, as the operator's
// identity would see it, so that the first query finds it ready.
func (sv *Service) Warm(ctx context.Context, identity string, workspaceIDs ...string) {
	for _, id := range workspaceIDs {
		acc := workspace.Access{Identity: identity, Action: workspace.ActionSearch}
		snap, err := sv.reg.Snapshot(ctx, acc, id, "")
		if err == nil {
			var src goindex.Source
			var done func()
			if src, done, err = sv.source(snap); err == nil {
				_, err = sv.ix.Index(ctx, src, goindex.Options{})
				done()
			}
		}
		if err != nil {
			sv.log.Warn("warming the symbol index", "workspace_id", id, "error", err)
		}
	}
}

func (sv *Service) search(ctx context.Context, req *server.Request, in SearchSymbolIn) (SearchSymbolOut, error) {
	snap, err := toolkit.Snapshot(ctx, sv.reg, req, in.Target)
	if err != nil {
		return SearchSymbolOut{}, err
	}
	src, done, err := sv.source(snap)
	if err != nil {
		return SearchSymbolOut{}, err
	}
	defer done()
	q := in.query()
	// One index serves every caller; each sees only the files its policy
	// (and the secret patterns) let it read.
	q.Allow = func(path string) bool {
		_, err := snap.Authorize(path, false)
		return err == nil
	}
	// A cold index takes seconds to build: say how far it has come.
	q.Progress = func(done, total int) {
		req.Progress(float64(done), float64(total), fmt.Sprintf("indexing Go files: %d of %d", done, total))
	}
	res, err := sv.ix.Search(ctx, src, goindex.Options{IncludeVendor: in.IncludeVendor, IncludeTestdata: in.IncludeTestdata}, q)
	if err != nil {
		return SearchSymbolOut{}, classify(err)
	}
	return output(snap.Revision().SHA, res), nil
}

// source returns the index source for a snapshot, and what to call when
// the search is done with it.
func (sv *Service) source(snap *workspace.Snapshot) (goindex.Source, func(), error) {
	ws := snap.Workspace()
	if snap.Revision().SHA == workspace.WorktreeRevision {
		root, err := ws.OpenWorktree()
		if err != nil {
			return nil, nil, server.Errorf(server.PermissionDenied, "%s", err.Error())
		}
		return goindex.NewDirSource(root), func() { root.Close() }, nil
	}
	h, err := sv.handle(ws)
	if err != nil {
		return nil, nil, err
	}
	src, err := goindex.NewGitSource(h.repo, plumbing.NewHash(snap.Revision().SHA))
	if err != nil {
		return nil, nil, classify(err)
	}
	return &lockedSource{Source: src, mu: &h.mu}, func() {}, nil
}

// handle returns the workspace's repository handle, opening it once.
func (sv *Service) handle(ws *workspace.Workspace) (*repoHandle, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if h, ok := sv.repos[ws.ID()]; ok {
		return h, nil
	}
	repo, closeRepo, err := ws.OpenGit(objectCacheBytes)
	if err != nil {
		return nil, fmt.Errorf("opening workspace %s for indexing: %w", ws.ID(), err)
	}
	h := &repoHandle{repo: repo, close: closeRepo}
	sv.repos[ws.ID()] = h
	return h, nil
}

// lockedSource serializes a source's reads with the other sources of the
// same repository handle.
type lockedSource struct {
	goindex.Source
	mu *sync.Mutex
}

func (s *lockedSource) Walk(ctx context.Context, fn func(goindex.File) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Source.Walk(ctx, fn)
}

func (s *lockedSource) ReadFile(ctx context.Context, f goindex.File) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Source.ReadFile(ctx, f)
}

// classify gives repository faults the caller can act on their class.
func classify(err error) error {
	if _, ok := errors.AsType[*server.Error](err); ok {
		return err
	}
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return server.Errorf(server.NotFound, "an object of this revision is missing from the repository").Wrap(err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("search_symbol: %w", err)
}
