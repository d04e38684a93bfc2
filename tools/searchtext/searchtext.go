package searchtext

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Options configure the service.
type Options struct {
	// CacheDir keeps the index on disk (under a versioned subdirectory),
	// shared with other processes; empty means memory only.
	CacheDir string
	// Logger receives index progress and warnings. Default: discard.
	Logger *slog.Logger
	// MaxFileBytes is the size above which a file is skipped. Default 4 MiB.
	MaxFileBytes int64
	// TimeBudget bounds the matching of one search; past it the search
	// answers with what it found, its totals marked as lower bounds.
	// Default 20s (and never past the call's own deadline).
	TimeBudget time.Duration
	// Workers is the number of files read and matched at once. Default
	// GOMAXPROCS.
	Workers int
	// ContentCacheBytes bounds the blob contents kept in memory for warm
	// searches. Default 128 MiB; negative means none.
	ContentCacheBytes int64
	// WarmAs, when set, is an identity: [Register] indexes HEAD of every
	// workspace it may search, in the background, and the server is not
	// ready until that is done.
	WarmAs string
}

// Defaults.
const (
	DefaultMaxFileBytes = 4 << 20
	DefaultTimeBudget   = 20 * time.Second
	DefaultLimit        = 100
	// DefaultContentCacheBytes holds the text of a repository the size of
	// Go's standard library's most searched part.
	DefaultContentCacheBytes = 128 << 20
	// maxPageBytes bounds the text one page shows; past it the page ends
	// early, with a cursor.
	maxPageBytes = 512 << 10
)

// Service is the state search_text keeps between calls: the index, the
// content cache, and per workspace the index build in flight.
type Service struct {
	reg      *workspace.Registry
	ix       *textindex.Index
	log      *slog.Logger
	opts     Options
	content  *contentCache
	listings *listings

	mu    sync.Mutex
	repos map[string]*repoState // by workspace id
	wg    sync.WaitGroup        // background builds
	stop  context.CancelFunc
	ctx   context.Context
}

// New returns a service reading through reg, with its index in
// opts.CacheDir.
func New(reg *workspace.Registry, opts Options) (*Service, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.TimeBudget <= 0 {
		opts.TimeBudget = DefaultTimeBudget
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.ContentCacheBytes == 0 {
		opts.ContentCacheBytes = DefaultContentCacheBytes
	}
	dir := ""
	if opts.CacheDir != "" {
		dir = filepath.Join(opts.CacheDir, textindex.DirVersion)
	}
	ix, err := textindex.Open(textindex.Options{Dir: dir, Logger: opts.Logger, Workers: opts.Workers})
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Service{
		reg: reg, ix: ix, log: opts.Logger, opts: opts, content: newContentCache(max(opts.ContentCacheBytes, 0)), listings: newListings(),
		repos: make(map[string]*repoState), ctx: ctx, stop: stop,
	}, nil
}

// Close stops background builds and waits for them.
func (sv *Service) Close() error {
	sv.stop()
	sv.wg.Wait()
	return nil
}

// Warm indexes HEAD of each workspace, as identity would see it, so that
// the first query finds the index ready. It returns when the builds end.
func (sv *Service) Warm(ctx context.Context, identity string, workspaceIDs ...string) {
	for _, id := range workspaceIDs {
		if err := sv.warm(ctx, identity, id); err != nil {
			sv.log.Warn("warming the text index", "workspace_id", id, "error", err)
		}
	}
}

func (sv *Service) warm(ctx context.Context, identity, id string) error {
	acc := workspace.Access{Identity: identity, Action: workspace.ActionSearch}
	snap, err := sv.reg.Snapshot(ctx, acc, id, "")
	if err != nil {
		return err
	}
	files, _, err := listFiles(ctx, snap, &pathFilter{}, sv.opts.MaxFileBytes)
	if err != nil {
		return err
	}
	_, err = sv.build(ctx, sv.repo(snap.Workspace()), snap, files)
	return err
}

// Index returns the service's index, for benchmarks and tests that
// measure it.
func (sv *Service) Index() *textindex.Index { return sv.ix }

// repoState is what the service keeps per workspace: whether an index
// build of it is running.
type repoState struct {
	mu       sync.Mutex
	building bool
}

// repo returns the workspace's state.
func (sv *Service) repo(ws *workspace.Workspace) *repoState {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	rs, ok := sv.repos[ws.ID()]
	if !ok {
		rs = &repoState{}
		sv.repos[ws.ID()] = rs
	}
	return rs
}

// readBlob returns a file's content, from the content cache when it is
// there, or nil when it is over the size bound (in the working tree:
// grew past it since the listing).
func (sv *Service) readBlob(ctx context.Context, snap *workspace.Snapshot, f fileRef) ([]byte, error) {
	if f.sha != "" {
		if data, ok := sv.content.get(f.blob); ok {
			return data, nil
		}
	}
	file, err := snap.ReadBlob(ctx, f.path, f.sha, workspace.ReadOptions{Limit: sv.opts.MaxFileBytes})
	switch {
	case err != nil || file.Truncated:
		return nil, err
	case file.Data == nil:
		return []byte{}, nil // empty, not over the bound
	}
	if f.sha != "" {
		sv.content.put(f.blob, file.Data)
	}
	return file.Data, nil
}

// build indexes the blobs of files the index does not know, reading them
// through snap, unless a build of this workspace is running (which then
// indexes them on a later search).
func (sv *Service) build(ctx context.Context, rs *repoState, snap *workspace.Snapshot, files []fileRef) (bool, error) {
	rs.mu.Lock()
	if rs.building {
		rs.mu.Unlock()
		return false, nil
	}
	rs.building = true
	rs.mu.Unlock()
	defer func() {
		rs.mu.Lock()
		rs.building = false
		rs.mu.Unlock()
	}()
	start := time.Now()
	id := snap.Workspace().ID()
	stats, err := sv.ix.Build(ctx, blobsOf(files), sv.source(snap, files), func(p textindex.Progress) {
		// A build runs detached from any request: its progress goes to
		// the log. A request's own progress is reported by progress.step.
		sv.log.Info("text index: building", "workspace_id", id, "blobs_done", p.Done, "blobs_total", p.Total, "bytes", p.Bytes)
	})
	sv.log.Info("text index: built", "workspace_id", id, "blobs", stats.Blobs, "binary", stats.Binary,
		"bytes", stats.Bytes, "shards", stats.Shards, "duration", time.Since(start), "error", err)
	return true, err
}

// source reads the blobs of files for an index build, through snap (so
// through the caller's policy), keeping what it reads in the content
// cache.
func (sv *Service) source(snap *workspace.Snapshot, files []fileRef) textindex.Source {
	byBlob := make(map[textindex.Blob]fileRef, len(files))
	for _, f := range files {
		byBlob[f.blob] = f
	}
	return func(ctx context.Context, blobs []textindex.Blob, fn func(int, []byte) error) error {
		refs := make([]workspace.BlobRef, len(blobs))
		for i, b := range blobs {
			refs[i] = workspace.BlobRef{Path: byBlob[b].path, SHA: byBlob[b].sha}
		}
		return snap.ReadBlobs(ctx, refs, sv.opts.MaxFileBytes, sv.opts.Workers, func(i int, data []byte, _ int64, err error) error {
			switch {
			case err != nil:
				return err
			case data == nil:
				// Listings leave out blobs over the bound, and blobs never change.
				return fmt.Errorf("blob %s is over %d bytes", blobs[i], sv.opts.MaxFileBytes)
			}
			sv.content.put(blobs[i], data)
			return fn(i, data)
		})
	}
}

// buildInBackground starts a build of files, detached from the request,
// unless one is running for the workspace. It reports whether a build
// runs.
func (sv *Service) buildInBackground(rs *repoState, snap *workspace.Snapshot, files []fileRef) bool {
	rs.mu.Lock()
	running := rs.building
	rs.mu.Unlock()
	if running {
		return true
	}
	sv.wg.Add(1)
	go func() {
		defer sv.wg.Done()
		if _, err := sv.build(sv.ctx, rs, snap, files); err != nil && !errors.Is(err, context.Canceled) {
			sv.log.Warn("text index: build failed", "workspace_id", snap.Workspace().ID(), "error", err)
		}
	}()
	return true
}
