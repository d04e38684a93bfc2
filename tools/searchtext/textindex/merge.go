package textindex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Shards accumulate: every build that adds blobs writes at least one, so
// a repository searched at many revisions would end with thousands of
// small shards, each searched at every query. Merge bounds their number.
//
// Merging is safe with other processes (and replicas) sharing the
// directory, and with a crash at any point, because a shard is never
// changed, only written whole under a name derived from its content and
// removed once what it covers is in another shard on disk:
//   - the merged shard is written (atomically) before any source is
//     removed, so a crash leaves both, and a later merge folds them in;
//   - sources are merged from memory, so a source another process removed
//     meanwhile is no loss;
//   - a process that loaded a source before it was removed keeps its copy
//     in memory, and loads the merged one at its next refresh;
//   - two processes merging the same sources write the same file.

// DefaultMaxShards is the default of Options.MaxShards.
const DefaultMaxShards = 32

// Merge folds the smallest shards into one when there are more than
// Options.MaxShards, as many as fit in Options.MaxPostings, and removes
// their files. It returns the number of shards merged (0: none).
func (ix *Index) Merge() (int, error) {
	ix.mergeMu.Lock()
	defer ix.mergeMu.Unlock()
	srcs := ix.mergeable()
	if len(srcs) < 2 {
		return 0, nil
	}
	blobs, binary, post := mergePostings(srcs)
	w := shardWriter{blobs: blobs, binary: binary, post: post}
	merged, err := ix.write(&w)
	if err != nil {
		return 0, err
	}
	ix.replace(srcs, merged)
	if ix.opts.Dir == "" {
		return len(srcs), nil
	}
	var errs []error
	for _, s := range srcs {
		if s.name == merged.name {
			continue
		}
		if err := os.Remove(filepath.Join(ix.opts.Dir, s.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return len(srcs), fmt.Errorf("textindex: removing merged shards: %w", err)
	}
	return len(srcs), nil
}

// mergeable returns the shards to merge: none while there are at most
// MaxShards, else the smallest, while their postings fit in MaxPostings.
func (ix *Index) mergeable() []*shard {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(ix.shards) <= ix.opts.MaxShards {
		return nil
	}
	bySize := slices.Clone(ix.shards)
	slices.SortFunc(bySize, func(a, b *shard) int { return a.pairs() - b.pairs() })
	var out []*shard
	total := 0
	for _, s := range bySize {
		if total += s.pairs(); total > ix.opts.MaxPostings && len(out) >= 2 {
			break
		}
		out = append(out, s)
	}
	return out
}

// mergePostings returns the blobs of srcs (each once), their binary
// flags, and their postings renumbered, unsorted.
func mergePostings(srcs []*shard) ([]Blob, []bool, []uint64) {
	var blobs []Blob
	var binary []bool
	var post []uint64
	seen := make(map[Blob]bool)
	for _, s := range srcs {
		ords := make([]int64, s.nblobs) // new ordinal, -1 for a blob already taken
		for ord := range s.nblobs {
			b := s.blob(ord)
			if seen[b] {
				ords[ord] = -1
				continue
			}
			seen[b] = true
			ords[ord] = int64(len(blobs))
			blobs = append(blobs, b)
			binary = append(binary, s.binary(ord))
		}
		for i := range s.ntri {
			t, count, off := s.entry(i)
			r := postingReader{data: s.data[s.postOff+int(off):], left: int(count), cur: -1}
			for r.next() {
				if r.cur < len(ords) && ords[r.cur] >= 0 {
					post = append(post, uint64(t)<<32|uint64(ords[r.cur]))
				}
			}
		}
	}
	return blobs, binary, post
}

// pairs returns the number of (trigram, blob) pairs the shard holds.
func (s *shard) pairs() int {
	n := 0
	for i := range s.ntri {
		_, count, _ := s.entry(i)
		n += int(count)
	}
	return n
}

// replace puts merged in the place of srcs, and finds every blob's shard
// again.
func (ix *Index) replace(srcs []*shard, merged *shard) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	kept := slices.DeleteFunc(slices.Clone(ix.shards), func(s *shard) bool { return slices.Contains(srcs, s) })
	if !slices.ContainsFunc(kept, func(s *shard) bool { return s.name == merged.name }) {
		kept = append(kept, merged)
	}
	ix.shards = kept
	ix.gen++
	ix.loaded[merged.name] = true
	ix.where = make(map[Blob]loc, len(ix.where))
	ix.bytes = 0
	for n, s := range ix.shards {
		ix.bytes += int64(len(s.data)) + 4
		for ord := range s.nblobs {
			if b := s.blob(ord); !hasLoc(ix.where, b) {
				ix.where[b] = loc{shard: int32(n), ord: uint32(ord)}
			}
		}
	}
}

func hasLoc(where map[Blob]loc, b Blob) bool {
	_, ok := where[b]
	return ok
}
