package textindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sort"
	"sync"
)

// A shard file is, little-endian:
//
//	header   magic "RMTX", version u32, blobs u32, trigrams u32
//	blobs    20-byte SHA-1 per blob, in ordinal order
//	flags    one byte per blob (flagBinary)
//	table    per trigram, ascending: trigram u32, count u32, offset u32
//	postings per trigram, the ascending ordinals of the blobs holding it,
//	         as uvarint deltas (the first from -1)
//	trailer  CRC-32C of everything before it, u32
//
// The whole file is read into memory when loaded.
const (
	shardMagic   = "RMTX"
	shardVersion = 1
	headerBytes  = 16
	tableEntry   = 12
	flagBinary   = 1
)

// castagnoli is the CRC table of shard checksums, made at first use: every
// process links this package, and making it at init cost every command,
// repo-mcp version included, more than any other of ours.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// ErrCorrupt is returned for a shard that is short, of another version or
// fails its checksum.
var ErrCorrupt = errors.New("textindex: corrupt shard")

// A shard is a loaded shard file.
type shard struct {
	name     string
	data     []byte
	nblobs   int
	ntri     int
	blobsOff int
	flagsOff int
	tableOff int
	postOff  int
}

func parseShard(name string, data []byte) (*shard, error) {
	if len(data) < headerBytes+4 || string(data[:4]) != shardMagic {
		return nil, fmt.Errorf("%w: %s: bad header", ErrCorrupt, name)
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, fmt.Errorf("%w: %s: checksum mismatch", ErrCorrupt, name)
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != shardVersion {
		return nil, fmt.Errorf("%w: %s: version %d", ErrCorrupt, name, v)
	}
	s := &shard{
		name:   name,
		data:   body,
		nblobs: int(binary.LittleEndian.Uint32(data[8:])),
		ntri:   int(binary.LittleEndian.Uint32(data[12:])),
	}
	s.blobsOff = headerBytes
	s.flagsOff = s.blobsOff + 20*s.nblobs
	s.tableOff = s.flagsOff + s.nblobs
	s.postOff = s.tableOff + tableEntry*s.ntri
	if s.postOff > len(body) || s.nblobs < 0 || s.ntri < 0 {
		return nil, fmt.Errorf("%w: %s: sizes exceed the file", ErrCorrupt, name)
	}
	// Offsets are checked here once, so that queries never index out of
	// range on a file that passed its checksum but was written wrong.
	postBytes := uint64(len(body) - s.postOff)
	for i := range s.ntri {
		if _, _, off := s.entry(i); uint64(off) > postBytes {
			return nil, fmt.Errorf("%w: %s: posting offset out of range", ErrCorrupt, name)
		}
	}
	return s, nil
}

func (s *shard) blob(ord int) Blob {
	var b Blob
	copy(b[:], s.data[s.blobsOff+20*ord:])
	return b
}

func (s *shard) binary(ord int) bool { return s.data[s.flagsOff+ord]&flagBinary != 0 }

func (s *shard) entry(i int) (t trigram, count, off uint32) {
	e := s.data[s.tableOff+tableEntry*i:]
	return binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:]), binary.LittleEndian.Uint32(e[8:])
}

// postings returns a reader over the posting list of t (empty when no
// blob of the shard holds t).
func (s *shard) postings(t trigram) postingReader {
	i := sort.Search(s.ntri, func(i int) bool {
		tt, _, _ := s.entry(i)
		return tt >= t
	})
	if i == s.ntri {
		return postingReader{}
	}
	tt, count, off := s.entry(i)
	if tt != t {
		return postingReader{}
	}
	return postingReader{data: s.data[s.postOff+int(off):], left: int(count), cur: -1}
}

// postingReader decodes a posting list. A list that runs past the end of
// the shard ends early rather than failing: the checksum already vouched
// for the bytes, and a short list only loses candidates of a damaged file.
type postingReader struct {
	data []byte
	left int
	cur  int
}

func (r *postingReader) next() bool {
	if r.left == 0 {
		return false
	}
	d, n := binary.Uvarint(r.data)
	if n <= 0 {
		r.left = 0
		return false
	}
	r.data = r.data[n:]
	r.cur += int(d)
	r.left--
	return true
}

// encodeShard renders blobs (in ordinal order), their binary flags and the
// postings (trigram<<32 | ordinal, sorted) as a shard file.
func encodeShard(blobs []Blob, binaryFlags []bool, post []uint64) []byte {
	ntri := 0
	for i := range post {
		if i == 0 || post[i]>>32 != post[i-1]>>32 {
			ntri++
		}
	}
	out := make([]byte, headerBytes, headerBytes+21*len(blobs)+tableEntry*ntri+2*len(post)+4)
	copy(out, shardMagic)
	binary.LittleEndian.PutUint32(out[4:], shardVersion)
	binary.LittleEndian.PutUint32(out[8:], uint32(len(blobs)))
	binary.LittleEndian.PutUint32(out[12:], uint32(ntri))
	for _, b := range blobs {
		out = append(out, b[:]...)
	}
	for _, bin := range binaryFlags {
		var f byte
		if bin {
			f = flagBinary
		}
		out = append(out, f)
	}
	// The postings go straight after the table, each trigram's row
	// filled in as its list is written.
	tableAt := len(out)
	out = append(out, make([]byte, tableEntry*ntri)...)
	postAt, row := len(out), 0
	for i := 0; i < len(post); {
		t := post[i] >> 32
		start, prev := len(out)-postAt, -1
		j := i
		for ; j < len(post) && post[j]>>32 == t; j++ {
			ord := int(uint32(post[j]))
			out = binary.AppendUvarint(out, uint64(ord-prev))
			prev = ord
		}
		e := out[tableAt+tableEntry*row:]
		binary.LittleEndian.PutUint32(e, uint32(t))
		binary.LittleEndian.PutUint32(e[4:], uint32(j-i))
		binary.LittleEndian.PutUint32(e[8:], uint32(start))
		row++
		i = j
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli()))
}
