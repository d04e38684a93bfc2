package workspace

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Listing a commit with sizes needs the size of every blob, which git
// keeps in the header of each pack entry. go-git's EncodedObjectSize first
// probes for a loose object (an open through BoundOS, a handful of system
// calls, most of the cost) and inflates whole deltas; a cold listing of a
// large repository spent hundreds of milliseconds there. This file reads
// the headers itself: the pack's .idx (kept in memory, as go-git keeps it)
// gives an entry's offset, the entry's header gives its size, and for a
// delta the first bytes of the inflated delta give the size of the result.
// Whatever it cannot answer (loose objects, packs it does not know, any
// surprise in a pack) is asked of go-git instead, so it is only ever a
// shortcut.

// packIndexes keeps the .idx files of a repository's packs across walks.
type packIndexes struct {
	mu    sync.Mutex
	packs map[plumbing.Hash]*packIndex
}

// A listSession is one walk's reading of a commit: it opens a sizeReader
// on the first listing with sizes the cache does not hold. Walk closes it.
type listSession struct {
	opened bool
	sizes  *sizeReader
}

// sizeReaderLocked opens the session's sizeReader if it is not open yet.
// r.mu must be held.
func (s *listSession) sizeReaderLocked(x *packIndexes, r *repo) *sizeReader {
	if s == nil {
		return nil
	}
	if !s.opened {
		s.sizes, s.opened = x.open(r), true
	}
	return s.sizes
}

func (s *listSession) close() {
	if s != nil {
		s.sizes.close()
	}
}

// sizeReader is what one walk keeps open to read sizes from packs: the
// pack files, and an inflater for the start of deltas. A nil sizeReader
// knows no sizes. It is not safe for concurrent use.
type sizeReader struct {
	packs []openPack
	br    *bufio.Reader
	zr    io.ReadCloser
}

type openPack struct {
	index *packIndex
	file  billy.File
	// mapped is the whole pack, mapped read-only where the platform can
	// (see mapFile), and unmap releases it: headers are read in place,
	// without the copies of windows. Where it cannot, windows are read.
	mapped []byte
	unmap  func() error
	// window is the part of the file from offset at, read in one go: a
	// walk asks for the entries of one directory after another, which a
	// pack mostly keeps close together, so one read serves many of them
	// (about six a read in the Go tree, rather than a read each).
	window []byte
	at     int64
}

// packWindow is the size of the reads of pack entries' headers.
const packWindow = 16 << 10

// headerBytes is what an entry's size is read from: its header, and the
// start of a delta's data.
const headerBytes = 256

// entryStart returns up to headerBytes of the pack from offset off, from
// the window when it holds them, else from a new window read at off.
func (p *openPack) entryStart(off int64) ([]byte, error) {
	if p.mapped != nil {
		if off < 0 || off >= int64(len(p.mapped)) {
			return nil, errPackFormat
		}
		return p.mapped[off:min(off+headerBytes, int64(len(p.mapped)))], nil
	}
	if off >= p.at && off+headerBytes <= p.at+int64(len(p.window)) {
		return p.window[off-p.at : off-p.at+headerBytes], nil
	}
	if p.window == nil {
		p.window = make([]byte, packWindow)
	}
	n, err := p.file.ReadAt(p.window[:packWindow], off)
	if n == 0 {
		p.window = p.window[:0]
		return nil, errors.Join(errPackFormat, err)
	}
	p.window, p.at = p.window[:n], off // an error with n > 0 is the end of the file
	return p.window[:min(n, headerBytes)], nil
}

// open opens the repository's packs for a walk, reading the .idx of those
// it does not know yet and forgetting those gone. r.mu must be held.
func (x *packIndexes) open(r *repo) *sizeReader {
	names, err := r.storage.ObjectPacks()
	if err != nil {
		return nil
	}
	fs := r.storage.Filesystem()
	x.mu.Lock()
	defer x.mu.Unlock()
	known := x.packs
	x.packs = make(map[plumbing.Hash]*packIndex, len(names))
	sr := &sizeReader{}
	for _, name := range names {
		index, ok := known[name]
		if !ok {
			if index, err = readPackIndex(fs, name); err != nil {
				continue // go-git answers for this pack
			}
		}
		f, err := fs.Open(packFile(fs, name, "pack"))
		if err != nil {
			continue
		}
		x.packs[name] = index
		p := openPack{index: index, file: f}
		if data, unmap, err := mapFile(fs, packFile(fs, name, "pack")); err == nil {
			p.mapped, p.unmap = data, unmap
		}
		sr.packs = append(sr.packs, p)
	}
	return sr
}

func packFile(fs billy.Filesystem, name plumbing.Hash, ext string) string {
	return fs.Join("objects", "pack", "pack-"+name.String()+"."+ext)
}

func readPackIndex(fs billy.Filesystem, name plumbing.Hash) (*packIndex, error) {
	path := packFile(fs, name, "idx")
	fi, err := fs.Stat(path)
	if err != nil {
		return nil, err
	}
	f, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, fi.Size()) // at once: growing it by doubling cost a cold listing more than the read
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return parsePackIndex(data)
}

func (sr *sizeReader) close() {
	if sr == nil {
		return
	}
	for _, p := range sr.packs {
		p.file.Close()
		if p.unmap != nil {
			p.unmap()
		}
	}
}

// packedSizeLocked reads the size of object h from the header of its
// entry in the repository's mapped packs, as listings do. Asked of go-git,
// a first size decodes the pack's whole index into a map of its own, which
// was most of what a new process did before its first read_file answered
// (that call stats the file first). r.mu must be held.
func (r *repo) packedSizeLocked(h plumbing.Hash) (int64, bool) {
	if r.packSizes == nil {
		pr := r.packsLocked()
		r.packSizes = &sizeReader{packs: make([]openPack, len(pr.packs))}
		for i, p := range pr.packs {
			r.packSizes.packs[i] = openPack{index: p.index, mapped: p.pack}
		}
	}
	return r.packSizes.size(h)
}

// size returns the size of object h when a pack holds it and its entry
// reads as expected.
func (sr *sizeReader) size(h plumbing.Hash) (int64, bool) {
	if sr == nil {
		return 0, false
	}
	for i := range sr.packs {
		p := &sr.packs[i]
		if off, ok := p.index.offset(h); ok {
			size, err := sr.entrySize(p, off)
			return size, err == nil
		}
	}
	return 0, false
}

// Pack entry types.
const (
	packCommit   = 1
	packTree     = 2
	packBlob     = 3
	packTag      = 4
	packOFSDelta = 6
	packREFDelta = 7
)

// entrySize reads the size of the object stored at offset off of a pack:
// from the entry's header, or for a delta from the delta's own header
// (the size of its base, then the size of the result). One read takes the
// header and the start of the compressed data, which is usually enough to
// inflate the delta's header from.
func (sr *sizeReader) entrySize(p *openPack, off int64) (int64, error) {
	b, err := p.entryStart(off)
	if err != nil {
		return 0, err
	}
	n := len(b)
	typ := b[0] >> 4 & 7
	size, used, ok := uvarint(b, b[0]&0xf, 4)
	if !ok {
		return 0, errPackFormat
	}
	switch typ {
	case packCommit, packTree, packBlob, packTag:
		return int64(size), nil
	case packOFSDelta:
		_, skip, ok := uvarint(b[used:], 0, 0)
		if !ok {
			return 0, errPackFormat
		}
		used += skip
	case packREFDelta:
		used += len(plumbing.ZeroHash)
	default:
		return 0, errPackFormat
	}
	if used > n {
		return 0, errPackFormat
	}
	if size, ok := sr.deltaSize(bytes.NewReader(b[used:])); ok {
		return size, nil
	}
	// The start did not suffice (a large Huffman table, say): inflate
	// from the mapping, or the file.
	if p.mapped != nil {
		if size, ok := sr.deltaSize(bytes.NewReader(p.mapped[off+int64(used):])); ok {
			return size, nil
		}
		return 0, errPackFormat
	}
	src := io.NewSectionReader(p.file, off+int64(used), 1<<62)
	if sr.br == nil {
		sr.br = bufio.NewReaderSize(src, 4096)
	} else {
		sr.br.Reset(src)
	}
	if size, ok := sr.deltaSize(sr.br); ok {
		return size, nil
	}
	return 0, errPackFormat
}

// deltaSize inflates the start of a delta from src and decodes the size
// of its result. A src cut short only leaves the answer unknown: flate
// hands out what it decoded before the input ran out.
func (sr *sizeReader) deltaSize(src flate.Reader) (int64, bool) {
	var err error
	if sr.zr == nil {
		sr.zr, err = zlib.NewReader(src)
	} else {
		err = sr.zr.(zlib.Resetter).Reset(src, nil)
	}
	if err != nil {
		return 0, false
	}
	var out [20]byte
	n, _ := io.ReadFull(sr.zr, out[:])
	_, skip, ok := uvarint(out[:n], 0, 0)
	if !ok {
		return 0, false
	}
	size, _, ok := uvarint(out[skip:n], 0, 0)
	return int64(size), ok
}

// uvarint decodes the little-endian base-128 number git writes in pack
// headers and deltas. The first byte's low bits may already have been
// taken (first, of width firstBits); it returns the value and the number
// of bytes used, counting that first byte.
func uvarint(b []byte, first byte, firstBits uint) (uint64, int, bool) {
	v, shift, i := uint64(first), firstBits, 0
	if firstBits > 0 {
		if len(b) == 0 {
			return 0, 0, false
		}
		if b[0]&0x80 == 0 {
			return v, 1, true
		}
		i = 1
	}
	for ; i < len(b); i++ {
		if shift > 63-7 {
			return 0, 0, false
		}
		v |= uint64(b[i]&0x7f) << shift
		shift += 7
		if b[i]&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// packIndex is a pack's version 2 .idx file.
type packIndex struct {
	data  []byte
	count int
}

var errPackFormat = errors.New("unexpected pack data")

const (
	idxHeader = 8 // magic and version
	idxFanout = idxHeader + 256*4
)

// parsePackIndex checks the layout of a version 2 .idx file.
func parsePackIndex(data []byte) (*packIndex, error) {
	if len(data) < idxFanout || !bytes.Equal(data[:idxHeader], []byte("\xfftOc\x00\x00\x00\x02")) {
		return nil, errPackFormat
	}
	prev := uint32(0)
	for i := range 256 {
		n := binary.BigEndian.Uint32(data[idxHeader+4*i:])
		if n < prev {
			return nil, errPackFormat
		}
		prev = n
	}
	count := int(prev)
	if count > (len(data)-idxFanout)/(20+4+4) {
		return nil, errPackFormat
	}
	return &packIndex{data: data, count: count}, nil
}

// offset returns the offset of object h in the pack, if the pack has it.
func (x *packIndex) offset(h plumbing.Hash) (int64, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.data[idxHeader+4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(x.data[idxHeader+4*int(h[0]):]))
	if lo > hi || hi > x.count {
		return 0, false
	}
	names := x.data[idxFanout : idxFanout+20*x.count]
	found := false
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(names[20*m:20*m+20], h[:]); {
		case c < 0:
			lo = m + 1
		case c > 0:
			hi = m
		default:
			lo, hi, found = m, m, true
		}
	}
	if !found {
		return 0, false
	}
	offsets := idxFanout + 24*x.count
	off := binary.BigEndian.Uint32(x.data[offsets+4*lo:])
	if off&(1<<31) == 0 {
		return int64(off), true
	}
	large := offsets + 4*x.count + 8*int(off&^(1<<31))
	if large+8 > len(x.data) {
		return 0, false
	}
	v := binary.BigEndian.Uint64(x.data[large:])
	return int64(v), v < 1<<63
}
