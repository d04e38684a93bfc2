package searchsymbol

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/tracing"
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
	// WarmAs, when set, is an identity: [Register] indexes HEAD of every
	// workspace it may search, in the background, and the server is not
	// ready until that is done.
	WarmAs string
}

// Service is the state search_symbol keeps between calls: the indexer,
// with its caches.
type Service struct {
	reg *workspace.Registry
	ix  *goindex.Indexer
	log *slog.Logger
}

// New returns a service reading through reg.
func New(reg *workspace.Registry, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{
		reg: reg,
		ix:  goindex.NewIndexer(goindex.IndexerOptions{CacheDir: opts.CacheDir, Logger: opts.Logger}),
		log: opts.Logger,
	}
}

// Close releases what the service holds. The repositories are the
// registry's; the indexer holds only memory.
func (sv *Service) Close() error { return nil }

// Warm builds the index of HEAD of each workspace, as the operator's
// identity would see it, so that the first query finds it ready.
func (sv *Service) Warm(ctx context.Context, identity string, workspaceIDs ...string) {
	for _, id := range workspaceIDs {
		acc := workspace.Access{Identity: identity, Action: workspace.ActionSearch}
		snap, err := sv.reg.Snapshot(ctx, acc, id, "")
		if err == nil {
			_, err = sv.ix.Index(ctx, source(snap), goindex.Options{})
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
	src := source(snap)
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
	// The span covers the index build when the revision has none yet.
	ictx, span := tracing.Start(ctx, "symbol index")
	res, err := sv.ix.Search(ictx, src, goindex.Options{IncludeVendor: in.IncludeVendor, IncludeTestdata: in.IncludeTestdata}, q)
	span.End()
	if err != nil {
		return SearchSymbolOut{}, classify(err)
	}
	return output(snap.Revision().SHA, res), nil
}

// source returns the index source for a snapshot. Both read through the
// workspace, so the entry-name rules and secret patterns apply.
func source(snap *workspace.Snapshot) goindex.Source {
	if snap.Revision().SHA == workspace.WorktreeRevision {
		// The working tree's index is built for this search alone: from the
		// caller's own snapshot, so a file it may not read is never read.
		return goindex.NewSnapshotSource(snap)
	}
	// The index of a commit is shared by every caller: it is built from
	// the workspace's own view, and search filters it per caller.
	return goindex.NewSnapshotSource(snap.Shared())
}

// classify gives repository faults the caller can act on their class.
func classify(err error) error {
	if _, ok := errors.AsType[*server.Error](err); ok {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("search_symbol: %w", err)
}
