package workspace

import (
	"encoding/binary"
	"math/bits"
	"strings"
)

// A commit-graph written with --changed-paths holds, for each commit, a
// Bloom filter of the paths its diff against its first parent changed
// (every changed file and each of its leading directories). A filter that
// does not hold a path proves the commit left it alone, so a log limited
// to that path skips the commit's tree diff; one that holds it may be
// wrong, and the diff decides. This file reads the filters (the BIDX and
// BDAT chunks, as git's gitformat-commit-graph describes them) and asks
// them, per layer of a split graph: each layer carries its own settings.

// Chunk ids of the commit-graph format.
const (
	chunkOIDFanout   = 0x4f494446 // "OIDF"
	chunkBloomIndex  = 0x42494458 // "BIDX"
	chunkBloomData   = 0x42444154 // "BDAT"
	graphHeaderBytes = 8
	chunkEntryBytes  = 12
	bloomHeaderBytes = 12
)

// bloomSettings are a layer's BDAT header: the hash version (1, or 2 for
// murmur3 read with unsigned bytes), the number of hashes per path and the
// bits per path git sized the filters with.
type bloomSettings struct {
	version, hashes, bitsPerEntry uint32
}

// bloomLayer is one commit-graph file's filters. Its commits have the
// graph positions first to first+count-1 (a split graph numbers its
// layers' commits one after the other, base first).
type bloomLayer struct {
	first, count uint32
	settings     bloomSettings
	index        []byte // BIDX: the end of each commit's filter in data
	data         []byte // BDAT after its header
}

// bloomFilters are the filters of a commit-graph, one entry per layer
// that has them.
type bloomFilters struct {
	layers []bloomLayer
}

// addLayer reads the filters of one commit-graph file whose commits start
// at graph position first. A file without filters, or with settings this
// reader does not know, adds no layer: its commits have no filter and are
// diffed.
func (b *bloomFilters) addLayer(file []byte, first uint32) {
	chunks := graphChunks(file)
	fanout := chunks[chunkOIDFanout]
	if len(fanout) != 256*4 {
		return
	}
	count := binary.BigEndian.Uint32(fanout[255*4:])
	index, data := chunks[chunkBloomIndex], chunks[chunkBloomData]
	if uint64(len(index)) != uint64(count)*4 || len(data) < bloomHeaderBytes {
		return
	}
	s := bloomSettings{
		version:      binary.BigEndian.Uint32(data),
		hashes:       binary.BigEndian.Uint32(data[4:]),
		bitsPerEntry: binary.BigEndian.Uint32(data[8:]),
	}
	if s.version != 1 && s.version != 2 || s.hashes == 0 || s.hashes > 32 {
		return
	}
	b.layers = append(b.layers, bloomLayer{first: first, count: count, settings: s, index: index, data: data[bloomHeaderBytes:]})
}

// graphChunks maps a commit-graph file's chunk ids to their bytes: each
// chunk runs from its offset in the table of contents to the next one's.
// A malformed table yields the chunks read before the fault.
func graphChunks(file []byte) map[uint32][]byte {
	chunks := map[uint32][]byte{}
	if len(file) < graphHeaderBytes || string(file[:4]) != "CGPH" {
		return chunks
	}
	n := int(file[6])
	toc := file[graphHeaderBytes:]
	if len(toc) < (n+1)*chunkEntryBytes {
		return chunks
	}
	for i := range n {
		e, next := toc[i*chunkEntryBytes:], toc[(i+1)*chunkEntryBytes:]
		start, end := binary.BigEndian.Uint64(e[4:]), binary.BigEndian.Uint64(next[4:])
		if start > end || end > uint64(len(file)) {
			return chunks
		}
		chunks[binary.BigEndian.Uint32(e)] = file[start:end]
	}
	return chunks
}

// filter returns the filter of the commit at graph position pos, or ok
// false when its layer has none or it was not computed (git writes an
// empty filter for a commit it was told not to compute one for).
func (b *bloomFilters) filter(pos uint32) (f []byte, s bloomSettings, ok bool) {
	for i := range b.layers {
		l := &b.layers[i]
		if pos < l.first || pos-l.first >= l.count {
			continue
		}
		j := pos - l.first
		var start uint32
		if j > 0 {
			start = binary.BigEndian.Uint32(l.index[(j-1)*4:])
		}
		end := binary.BigEndian.Uint32(l.index[j*4:])
		if start >= end || uint64(end) > uint64(len(l.data)) {
			return nil, s, false
		}
		return l.data[start:end], l.settings, true
	}
	return nil, s, false
}

// bloomQuery asks filters about one path: whether a commit may have
// changed it. It keeps the path's keys per filter settings.
type bloomQuery struct {
	paths []string // the path and each of its leading directories
	ascii bool
	keys  map[bloomSettings][][]uint32
}

// newBloomQuery returns the query for a path ("" has none: every commit
// changes the root).
func newBloomQuery(p string) *bloomQuery {
	if p == "" {
		return nil
	}
	q := &bloomQuery{ascii: isASCII(p), keys: map[bloomSettings][][]uint32{}}
	for {
		q.paths = append(q.paths, p)
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return q
		}
		p = p[:i]
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// maybeChanged reports whether the commit at graph position pos may have
// changed the path against its first parent: false only when its filter
// proves it did not. A commit without a filter, and a path the filter's
// hash version cannot key the same on every machine (version 1 hashed
// bytes past ASCII as signed chars, as the platform's char type had it),
// may have.
func (q *bloomQuery) maybeChanged(b *bloomFilters, pos uint32) bool {
	f, s, ok := b.filter(pos)
	if !ok || s.version == 1 && !q.ascii {
		return true
	}
	keys, ok := q.keys[s]
	if !ok {
		for _, p := range q.paths {
			keys = append(keys, bloomKey(p, s.hashes))
		}
		q.keys[s] = keys
	}
	nbits := uint64(len(f)) * 8
	for _, key := range keys {
		for _, h := range key {
			bit := uint64(h) % nbits
			if f[bit/8]&(1<<(bit%8)) == 0 {
				return false // a leading directory, or the path, unchanged
			}
		}
	}
	return true
}

// Bloom key seeds of git's changed-path filters.
const (
	bloomSeed0 = 0x293ae76f
	bloomSeed1 = 0x7e646e2c
)

// bloomKey is a path's k bit positions before the modulo: two murmur3
// hashes, combined as h0 + i*h1 (double hashing).
func bloomKey(p string, k uint32) []uint32 {
	h0, h1 := murmur3([]byte(p), bloomSeed0), murmur3([]byte(p), bloomSeed1)
	key := make([]uint32, k)
	for i := range key {
		key[i] = h0 + uint32(i)*h1
	}
	return key
}

// murmur3 is MurmurHash3's 32-bit x86 variant.
func murmur3(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	mix := func(k uint32) uint32 {
		return bits.RotateLeft32(k*c1, 15) * c2
	}
	h := seed
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		h ^= mix(binary.LittleEndian.Uint32(data[i:]))
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	var k uint32
	switch tail := data[n:]; len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		h ^= mix(k)
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
