package textindex

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A Blob is a git blob id (SHA-1).
type Blob [20]byte

// ParseBlob parses a blob id in hex.
func ParseBlob(s string) (Blob, error) {
	var b Blob
	if len(s) != 2*len(b) {
		return b, fmt.Errorf("textindex: blob id %q is not %d hex digits", s, 2*len(b))
	}
	_, err := hex.Decode(b[:], []byte(s))
	return b, err
}

func (b Blob) String() string { return hex.EncodeToString(b[:]) }

// Status is what the index knows about a blob.
type Status uint8

// Blob statuses.
const (
	Unknown Status = iota // not indexed yet
	Text                  // indexed: its trigrams are in a shard
	Binary                // seen, binary by git's rule: never searched
)

// Options configure an index.
type Options struct {
	// Dir keeps shards on disk, shared with other processes; empty means
	// memory only.
	Dir string
	// MaxPostings bounds the (trigram, blob) pairs a build holds in
	// memory (16 bytes each while sorting) before it writes a shard.
	// Default 4M.
	MaxPostings int
	// Workers is the number of blobs a build expects to be split into
	// trigrams at once (the source decides): it sizes the build's buffers.
	// Default 2.
	Workers int
	// MaxShards bounds the shards a build leaves before it merges the
	// smallest (see [Index.Merge]). Default DefaultMaxShards.
	MaxShards int
	// Logger receives warnings about unreadable shards. Default: discard.
	Logger *slog.Logger
}

// DirVersion names the directory level of the shard format, so that
// another format version never reads these files.
const DirVersion = "text-v1"

// shardExt ends every shard file name.
const shardExt = ".tri"

// Index is a set of shards. It is safe for concurrent use.
type Index struct {
	opts Options
	log  *slog.Logger

	mergeMu sync.Mutex // one merge at a time

	mu     sync.RWMutex
	shards []*shard
	loaded map[string]bool // shard names, loaded or found unreadable
	where  map[Blob]loc
	bytes  int64
	// gen counts the changes to shards and where, so that a Resolved
	// knows whether it still holds.
	gen uint64
}

// loc is where a blob is: shard index and ordinal.
type loc struct {
	shard int32
	ord   uint32
}

// Open opens the index kept in opts.Dir (created if need be) and loads
// the shards it holds.
func Open(opts Options) (*Index, error) {
	if opts.MaxPostings <= 0 {
		opts.MaxPostings = 4 << 20
	}
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	if opts.MaxShards <= 0 {
		opts.MaxShards = DefaultMaxShards
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ix := &Index{opts: opts, log: opts.Logger, loaded: make(map[string]bool), where: make(map[Blob]loc)}
	if opts.Dir != "" {
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("textindex: creating the index directory: %w", err)
		}
	}
	return ix, ix.Refresh()
}

// Refresh loads the shards that other processes wrote since the last
// refresh. Unreadable shards are logged, removed, and their blobs left
// unknown.
func (ix *Index) Refresh() error {
	if ix.opts.Dir == "" {
		return nil
	}
	entries, err := os.ReadDir(ix.opts.Dir)
	if err != nil {
		return fmt.Errorf("textindex: listing the index directory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".tmp-"):
			ix.removeStaleTemp(e)
			continue
		case !strings.HasSuffix(name, shardExt):
			continue
		}
		ix.mu.RLock()
		seen := ix.loaded[name]
		ix.mu.RUnlock()
		if seen {
			continue
		}
		data, err := os.ReadFile(filepath.Join(ix.opts.Dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by another process meanwhile
		}
		if err != nil {
			return fmt.Errorf("textindex: reading shard: %w", err)
		}
		s, err := parseShard(name, data)
		if err != nil {
			ix.log.Warn("textindex: removing an unreadable shard", "shard", name, "error", err)
			os.Remove(filepath.Join(ix.opts.Dir, name))
			ix.mu.Lock()
			ix.loaded[name] = true
			ix.mu.Unlock()
			continue
		}
		ix.add(s)
	}
	return nil
}

// removeStaleTemp removes a temporary file a crashed writer left an hour
// or more ago; younger ones may be a live writer's.
func (ix *Index) removeStaleTemp(e fs.DirEntry) {
	if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
		os.Remove(filepath.Join(ix.opts.Dir, e.Name()))
	}
}

// add makes a parsed shard visible to queries. A blob already covered by
// another shard stays with that one.
func (ix *Index) add(s *shard) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded[s.name] {
		return
	}
	ix.loaded[s.name] = true
	ix.gen++
	n := int32(len(ix.shards))
	ix.shards = append(ix.shards, s)
	ix.bytes += int64(len(s.data)) + 4
	for ord := range s.nblobs {
		b := s.blob(ord)
		if _, ok := ix.where[b]; !ok {
			ix.where[b] = loc{shard: n, ord: uint32(ord)}
		}
	}
}

// Lookup returns the status of each blob.
func (ix *Index) Lookup(blobs []Blob) []Status {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]Status, len(blobs))
	for i, b := range blobs {
		if l, ok := ix.where[b]; ok {
			out[i] = Text
			if ix.shards[l.shard].binary(int(l.ord)) {
				out[i] = Binary
			}
		}
	}
	return out
}

// Candidates returns, for each blob, whether it may match the plan: true
// for text blobs the plan cannot rule out, false for blobs it rules out
// and for binary blobs. Unknown blobs are reported true: the caller must
// scan them (or index them first).
func (ix *Index) Candidates(p Plan, blobs []Blob) []bool {
	c, _ := ix.ResolvedCandidates(p, blobs, nil)
	return c
}

// Stats describe an index.
type Stats struct {
	Shards int
	Blobs  int
	Bytes  int64 // shard bytes, as on disk
}

// Stats returns the index's size.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return Stats{Shards: len(ix.shards), Blobs: len(ix.where), Bytes: ix.bytes}
}
