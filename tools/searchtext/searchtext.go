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
	// objectCacheBytes sizes each blob reader's object cache: deltas
	// resolve against recently read bases.
	objectCacheBytes = 16 << 20
	// maxPageBytes bounds the text one page shows; past it the page ends
	// early, with a cursor.
	maxPageBytes = 512 << 10
)

// Service is the state search_text keeps between calls: the index, and
// per workspace a pool of blob readers and the index build in flight.
type Service struct {
	reg     *workspace.Registry
	ix      *textindex.Index
	log     *slog.Logger
	opts    Options
	content *contentCache

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
		reg: reg, ix: ix, log: opts.Logger, opts: opts, content: newContentCache(max(opts.ContentCacheBytes, 0)),
		repos: make(map[string]*repoState), ctx: ctx, stop: stop,
	}, nil
}

// Close stops background builds, waits for them, and releases the blob
// readers.
func (sv *Service) Close() error {
	sv.stop()
	sv.wg.Wait()
	sv.mu.Lock()
	defer sv.mu.Unlock()
	var errs []error
	for id, rs := range sv.repos {
		errs = append(errs, rs.close())
		delete(sv.repos, id)
	}
	return errors.Join(errs...)
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
	rs, err := sv.repo(snap.Workspace())
	if err != nil {
		return err
	}
	_, err = sv.build(ctx, rs, id, blobsOf(files))
	return err
}

// Index returns the service's index, for benchmarks and tests that
// measure it.
func (sv *Service) Index() *textindex.Index { return sv.ix }

// repoState is what the service keeps per workspace.
type repoState struct {
	readers  chan blobStore
	all      []blobStore
	mu       sync.Mutex
	building bool
}

// blobStore is the git access search_text needs beyond a Snapshot's walk:
// whole blobs by id, from ids an authorized walk listed. It is kept this
// small so that moving it onto another read API of workspace is a few
// lines.
type blobStore interface {
	Read(sha string, max int64) ([]byte, int64, error)
	Close() error
}

// repo returns the workspace's state, opening its blob readers once.
func (sv *Service) repo(ws *workspace.Workspace) (*repoState, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if rs, ok := sv.repos[ws.ID()]; ok {
		return rs, nil
	}
	rs := &repoState{readers: make(chan blobStore, sv.opts.Workers)}
	for range sv.opts.Workers {
		r, err := ws.OpenBlobReader(objectCacheBytes)
		if err != nil {
			rs.close()
			return nil, fmt.Errorf("opening workspace %s for search: %w", ws.ID(), err)
		}
		rs.all = append(rs.all, r)
		rs.readers <- r
	}
	sv.repos[ws.ID()] = rs
	return rs, nil
}

func (rs *repoState) close() error {
	var errs []error
	for _, r := range rs.all {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// readBlob returns a blob's content, from the content cache when it is
// there, or nil when it is over the size bound.
func (sv *Service) readBlob(ctx context.Context, rs *repoState, b textindex.Blob) ([]byte, error) {
	if data, ok := sv.content.get(b); ok {
		return data, nil
	}
	data, err := rs.read(ctx, b.String(), sv.opts.MaxFileBytes)
	if data != nil {
		sv.content.put(b, data)
	}
	return data, err
}

// read returns a blob's content, or nil when it is over max bytes.
func (rs *repoState) read(ctx context.Context, sha string, max int64) ([]byte, error) {
	var r blobStore
	select {
	case r = <-rs.readers:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { rs.readers <- r }()
	data, size, err := r.Read(sha, max)
	switch {
	case err != nil || size > max:
		return nil, err
	case data == nil:
		return []byte{}, nil // empty, not over the bound
	}
	return data, nil
}

// build indexes blobs the index does not know, unless a build of this
// workspace is running (which then indexes them on a later search).
func (sv *Service) build(ctx context.Context, rs *repoState, id string, blobs []textindex.Blob) (bool, error) {
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
	read := func(ctx context.Context, b textindex.Blob) ([]byte, error) {
		data, err := sv.readBlob(ctx, rs, b)
		if data == nil && err == nil {
			// Listings leave out blobs over the bound, and blobs never change.
			err = fmt.Errorf("blob %s is over %d bytes", b, sv.opts.MaxFileBytes)
		}
		return data, err
	}
	// A build runs detached from any request: its progress goes to the
	// log. A request's own progress is reported by progress.step.
	stats, err := sv.ix.Build(ctx, blobs, read, func(p textindex.Progress) {
		sv.log.Info("text index: building", "workspace_id", id, "blobs_done", p.Done, "blobs_total", p.Total, "bytes", p.Bytes)
	})
	sv.log.Info("text index: built", "workspace_id", id, "blobs", stats.Blobs, "binary", stats.Binary,
		"bytes", stats.Bytes, "shards", stats.Shards, "duration", time.Since(start), "error", err)
	return true, err
}

// buildInBackground starts a build of blobs, detached from the request,
// unless one is running for the workspace. It reports whether a build
// runs.
func (sv *Service) buildInBackground(rs *repoState, id string, blobs []textindex.Blob) bool {
	rs.mu.Lock()
	running := rs.building
	rs.mu.Unlock()
	if running {
		return true
	}
	sv.wg.Add(1)
	go func() {
		defer sv.wg.Done()
		if _, err := sv.build(sv.ctx, rs, id, blobs); err != nil && !errors.Is(err, context.Canceled) {
			sv.log.Warn("text index: build failed", "workspace_id", id, "error", err)
		}
	}()
	return true
}
