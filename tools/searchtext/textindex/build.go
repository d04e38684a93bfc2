package textindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/repo-mcp/repo-mcp/internal/atomicfile"
)

// A Source reads the blobs of a build: it calls fn once for each of
// blobs, with its index in blobs and its content, from as many goroutines
// at once as it likes, and returns the first error of a read or of fn.
type Source func(ctx context.Context, blobs []Blob, fn func(i int, data []byte) error) error

// Progress says how far a build is.
type Progress struct {
	Done, Total int   // blobs
	Bytes       int64 // read so far
}

// BuildStats describe what a build added.
type BuildStats struct {
	Blobs  int   // indexed, binary ones included
	Binary int   // of Blobs
	Bytes  int64 // read
	Shards int   // written
}

// progressEvery is how many blobs pass between two progress reports.
const progressEvery = 1000

// Build indexes the blobs the index does not know yet, reading each once
// from src, and writes shards of at most Options.MaxPostings pairs as it
// goes: memory stays bounded whatever the number of blobs, and the shards
// written before an error or cancellation are kept. The source's
// goroutines split blobs into trigrams; one goroutine, Build's own, writes
// shards. progress, when not nil, is called from Build's goroutine now
// and then.
func (ix *Index) Build(ctx context.Context, blobs []Blob, src Source, progress func(Progress)) (BuildStats, error) {
	todo := ix.missing(blobs)
	var stats BuildStats
	if len(todo) == 0 {
		return stats, nil
	}
	type result struct {
		blob   Blob
		binary bool
		size   int
		tris   []trigram
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan result, ix.opts.Workers)
	seen := make(seenPool, ix.opts.Workers)
	// Trigram lists go back for reuse once the writer has copied them:
	// grown afresh for each blob, they cost as much as extracting them.
	spare := make(trigramPool, cap(results)+2*ix.opts.Workers)
	srcErr := make(chan error, 1)
	go func() {
		defer close(results)
		srcErr <- src(ctx, todo, func(i int, data []byte) error {
			r := result{blob: todo[i], size: len(data), binary: IsBinary(data)}
			if !r.binary {
				s := seen.get()
				r.tris = appendTrigrams(spare.get(), data, s)
				seen.put(s)
			}
			select {
			case results <- r:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()

	w := shardWriter{post: make([]uint64, 0, ix.opts.MaxPostings+1<<16)}
	for r := range results {
		w.add(r.blob, r.binary, r.tris)
		spare.put(r.tris)
		stats.Blobs++
		stats.Bytes += int64(r.size)
		if r.binary {
			stats.Binary++
		}
		if len(w.post) >= ix.opts.MaxPostings {
			if err := ix.flush(&w); err != nil {
				cancel()
				for range results {
				}
				<-srcErr
				return stats, err
			}
			stats.Shards++
		}
		if progress != nil && stats.Blobs%progressEvery == 0 {
			progress(Progress{Done: stats.Blobs, Total: len(todo), Bytes: stats.Bytes})
		}
	}
	err := <-srcErr
	if err != nil {
		err = fmt.Errorf("textindex: reading blobs: %w", err)
	}
	// What was read is kept even when the build stopped early.
	if len(w.blobs) > 0 {
		if ferr := ix.flush(&w); ferr != nil && err == nil {
			err = ferr
		}
		stats.Shards++
	}
	if progress != nil {
		progress(Progress{Done: stats.Blobs, Total: len(todo), Bytes: stats.Bytes})
	}
	if _, merr := ix.Merge(); merr != nil && err == nil {
		err = merr
	}
	return stats, err
}

// missing returns the distinct blobs of blobs the index does not know.
func (ix *Index) missing(blobs []Blob) []Blob {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	seen := make(map[Blob]bool)
	var out []Blob
	for _, b := range blobs {
		if _, ok := ix.where[b]; !ok && !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

// trigramPool keeps emptied trigram lists for reuse, up to its capacity.
type trigramPool chan []trigram

func (p trigramPool) get() []trigram {
	select {
	case t := <-p:
		return t[:0]
	default:
		return nil
	}
}

func (p trigramPool) put(t []trigram) {
	select {
	case p <- t:
	default:
	}
}

// shardWriter accumulates one shard.
type shardWriter struct {
	blobs  []Blob
	binary []bool
	post   []uint64 // trigram<<32 | ordinal, in ordinal order
	// tmp is the radix sort's scratch, kept from shard to shard.
	tmp []uint64
}

func (w *shardWriter) add(b Blob, binary bool, tris []trigram) {
	ord := uint64(len(w.blobs))
	w.blobs = append(w.blobs, b)
	w.binary = append(w.binary, binary)
	for _, t := range tris {
		w.post = append(w.post, uint64(t)<<32|ord)
	}
}

// flush writes the accumulated shard, loads it and resets w.
func (ix *Index) flush(w *shardWriter) error {
	s, err := ix.write(w)
	if err != nil {
		return err
	}
	ix.add(s)
	return nil
}

// write sorts and encodes w's shard, writes it to the directory and
// resets w; it returns the shard as loaded.
func (ix *Index) write(w *shardWriter) (*shard, error) {
	w.tmp = radixSortByTrigram(w.post, w.tmp)
	data := encodeShard(w.blobs, w.binary, w.post)
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:16]) + shardExt
	*w = shardWriter{post: w.post[:0], tmp: w.tmp}
	if ix.opts.Dir != "" {
		if err := atomicfile.WriteFile(filepath.Join(ix.opts.Dir, name), data); err != nil {
			return nil, fmt.Errorf("textindex: writing a shard: %w", err)
		}
	}
	s, err := parseShard(name, data)
	if err != nil {
		return nil, err // a bug: the shard was just encoded
	}
	return s, nil
}

// radixSortByTrigram sorts postings by trigram, stably, so that each
// trigram's ordinals stay ascending: two 12-bit passes. tmp is scratch
// space, grown when short and returned for the next sort.
func radixSortByTrigram(post, tmp []uint64) []uint64 {
	if cap(tmp) < len(post) {
		tmp = make([]uint64, len(post))
	}
	tmp = tmp[:len(post)]
	src, dst := post, tmp
	for shift := uint(32); shift < 56; shift += 12 {
		var count [1<<12 + 1]int
		for _, p := range src {
			count[(p>>shift)&0xFFF+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, p := range src {
			k := (p >> shift) & 0xFFF
			dst[count[k]] = p
			count[k]++
		}
		src, dst = dst, src
	}
	// After an even number of passes the result is back in post.
	return tmp
}
