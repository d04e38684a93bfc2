package goindex

import (
	"container/list"
	"context"
	"log/slog"
	"runtime"
	"sync"
	"weak"
)

// Options select what an index covers. Indexes built with different
// options are different indexes.
type Options struct {
	// IncludeVendor indexes vendor directories; their packages get the
	// import path below vendor/.
	IncludeVendor bool
	// IncludeTestdata indexes testdata directories and the other
	// directories the go command ignores (names beginning with . or _).
	IncludeTestdata bool
}

func (o Options) key() string {
	b := []byte("--")
	if o.IncludeVendor {
		b[0] = 'v'
	}
	if o.IncludeTestdata {
		b[1] = 't'
	}
	return string(b)
}

// IndexerOptions configure an [Indexer]. The zero value is usable.
type IndexerOptions struct {
	// CacheDir, when set, holds an on-disk cache of built indexes so that a
	// new process can answer without parsing. [DefaultCacheDir] is the
	// conventional place.
	CacheDir string
	// MaxCacheFiles is how many indexes the on-disk cache keeps (the least
	// recently used are removed); 0 means 16.
	MaxCacheFiles int
	// Workers is the number of parsing goroutines; 0 means GOMAXPROCS.
	Workers int
	// BlobCacheBytes bounds the in-memory cache of parsed files (approximate
	// bytes per generation; two generations are kept); 0 means 256 MiB.
	BlobCacheBytes int
	// MaxIndexes is how many built indexes of immutable revisions stay in
	// memory; 0 means 4.
	MaxIndexes int
	// Logger receives debug events (builds, cache hits, cache faults).
	// nil discards them.
	Logger *slog.Logger
}

// An Indexer builds and caches indexes. It is safe for concurrent use, and
// concurrent requests for the index of the same revision share one build.
type Indexer struct {
	opts    IndexerOptions
	log     *slog.Logger
	blobs   *blobCache
	names   *nameTable
	stats   statMemo
	tree    treeMemo
	disk    *diskCache // nil when disabled
	flights flightGroup

	mu      sync.Mutex
	lru     *list.List // of *Index, most recent first
	indexes map[string]*list.Element
	loaded  []weak.Pointer[Index] // loaded from disk; their files are not in blobs yet
}

// NewIndexer returns an Indexer.
func NewIndexer(opts IndexerOptions) *Indexer {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.BlobCacheBytes <= 0 {
		opts.BlobCacheBytes = 256 << 20
	}
	if opts.MaxIndexes <= 0 {
		opts.MaxIndexes = 4
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ix := &Indexer{
		opts:    opts,
		log:     log,
		blobs:   newBlobCache(opts.BlobCacheBytes),
		names:   newNameTable(),
		lru:     list.New(),
		indexes: make(map[string]*list.Element),
	}
	if opts.CacheDir != "" {
		if opts.MaxCacheFiles <= 0 {
			opts.MaxCacheFiles = 16
		}
		ix.disk = &diskCache{dir: opts.CacheDir, max: opts.MaxCacheFiles, log: log}
	}
	return ix
}

// Index returns the index of src, building it unless an index of the same
// revision and options is in memory or in the on-disk cache. Sources
// without a revision (working trees) are indexed afresh on every call, but
// only files whose contents changed are parsed again.
func (ix *Indexer) Index(ctx context.Context, src Source, opts Options) (*Index, error) {
	idx, _, err := ix.index(ctx, src, opts, nil)
	return idx, err
}

// Warm builds (or loads) the index of src so that later queries find it
// ready.
func (ix *Indexer) Warm(ctx context.Context, src Source, opts Options) error {
	_, _, err := ix.index(ctx, src, opts, nil)
	return err
}

// Search finds declarations in the index of src; see [Index.Search].
// The result's facts tell whether the index was ready or built by this
// call.
func (ix *Indexer) Search(ctx context.Context, src Source, opts Options, q Query) (*Result, error) {
	// Validate before the expensive part.
	if _, err := compileQuery(q); err != nil {
		return nil, err
	}
	idx, from, err := ix.index(ctx, src, opts, q.Progress)
	if err != nil {
		return nil, err
	}
	res, err := idx.Search(q)
	if err != nil {
		return nil, err
	}
	res.Facts.From = from
	return res, nil
}

// index returns the index and where it came from. progress, when set, is
// told how a build it waits for goes.
func (ix *Indexer) index(ctx context.Context, src Source, opts Options, progress Progress) (*Index, From, error) {
	rev := src.Revision()
	if rev == "" {
		var counts buildCounts
		stop := counts.watch(progress)
		idx, err := ix.build(ctx, src, opts, &counts)
		stop()
		return idx, FromBuild, err
	}
	key := rev + "\x00" + opts.key()
	if idx := ix.cached(key); idx != nil {
		return idx, FromMemory, nil
	}
	return ix.flights.do(ctx, key, progress, func(ctx context.Context, counts *buildCounts) (*Index, From, error) {
		if idx := ix.cached(key); idx != nil {
			return idx, FromMemory, nil
		}
		from := FromDisk
		idx := ix.loadDisk(rev, opts)
		if idx == nil {
			var err error
			if idx, err = ix.build(ctx, src, opts, counts); err != nil {
				return nil, "", err
			}
			from = FromBuild
			ix.storeDisk(idx)
		}
		ix.remember(key, idx)
		return idx, from, nil
	})
}

func (ix *Indexer) cached(key string) *Index {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if e, ok := ix.indexes[key]; ok {
		ix.lru.MoveToFront(e)
		return e.Value.(*Index)
	}
	return nil
}

func (ix *Indexer) remember(key string, idx *Index) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if _, ok := ix.indexes[key]; ok {
		return
	}
	ix.indexes[key] = ix.lru.PushFront(idx)
	for ix.lru.Len() > ix.opts.MaxIndexes {
		old := ix.lru.Back()
		ix.lru.Remove(old)
		o := old.Value.(*Index)
		delete(ix.indexes, o.revision+"\x00"+o.opts.key())
	}
}

func (ix *Indexer) loadDisk(rev string, opts Options) *Index {
	if ix.disk == nil {
		return nil
	}
	idx, ok := ix.disk.load(rev, opts)
	if !ok {
		return nil
	}
	// Its files can serve builds of other revisions, which put them in the
	// blob cache (see adoptLoaded): the first query does not wait for that.
	ix.mu.Lock()
	ix.loaded = append(ix.loaded, weak.Make(idx))
	ix.mu.Unlock()
	return idx
}

// adoptLoaded puts the files of the indexes loaded from disk since the
// last build, and still in memory, into the blob cache, so that a build
// parses only the files they lack. A build that reuses one interns its
// names then (see nameTable.internFiles).
func (ix *Indexer) adoptLoaded() {
	ix.mu.Lock()
	loaded := ix.loaded
	ix.loaded = nil
	ix.mu.Unlock()
	for _, w := range loaded {
		idx := w.Value()
		if idx == nil {
			continue
		}
		for i := range idx.files {
			if id := idx.str(idx.files[i].id); !ix.blobs.has(id) {
				ix.blobs.put(idx.parsedFile(i))
			}
		}
	}
}

func (ix *Indexer) storeDisk(idx *Index) {
	if ix.disk == nil {
		return
	}
	ix.disk.store(idx)
}
