package workspace

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// Listing a commit with sizes needs the size of every blob, which git
// keeps in the header of each pack entry. go-git's EncodedObjectSize first
// probes for a loose object (an open through BoundOS, a handful of system
// calls, most of the cost), decodes the pack's whole index into a map of
// its own, and inflates whole deltas. Sizes are read here from the packs
// the repository has mapped (historypack.go), as git ls-tree -l reads
// them: the .idx gives an entry's offset, the entry's header gives its
// size, and for a delta the first bytes of the inflated delta give the
// size of the result. Listings, and the Stat before a first read_file,
// share those packs for the life of the repository: opening them, and
// reading their indexes, for each walk was most of a listing's system
// time. Whatever the packs cannot answer (loose objects, packs that cannot
// be mapped, any surprise in a pack) is asked of go-git instead, so this
// is only ever a shortcut.
//
// The headers themselves are read from the pack file in windows rather
// than from the mapping. A full listing touches most pages of the pack,
// and touching a page of a mapping for the first time costs far more than
// copying it (on the virtual machines CI runs on, the 31 MB pack of the
// Go tree took 32 ms to touch through a mapping and 13 ms to read in
// 16 KiB windows), while a walk in tree order finds most entries in the
// window read for the entry before (about six a read in the Go tree).

// headerWindow is the part of a pack most recently read for entry
// headers.
type headerWindow struct {
	buf  []byte
	pack *mappedPack // nil: nothing read yet
	at   int64
}

// packWindow is the size of the reads of pack entries' headers.
const packWindow = 16 << 10

// headerBytes is what an entry's size is read from: its header, and the
// start of a delta's data.
const headerBytes = 256

// entryStart returns up to headerBytes of pack p from offset off: from the
// window when it holds them, else from a new window read at off, else
// (no file, or it could not be read) from the mapping.
func (pr *packReader) entryStart(p *mappedPack, off int64) []byte {
	w := &pr.headers
	if w.pack == p && off >= w.at && off+headerBytes <= w.at+int64(len(w.buf)) {
		return w.buf[off-w.at : off-w.at+headerBytes]
	}
	if p.file != nil {
		if w.buf == nil {
			w.buf = make([]byte, packWindow)
		}
		n, _ := p.file.ReadAt(w.buf[:packWindow], off) // an error with n > 0 is the end of the file
		if n > 0 {
			w.buf, w.pack, w.at = w.buf[:n], p, off
			return w.buf[:min(n, headerBytes)]
		}
		w.pack = nil
	}
	if off < 0 || off >= int64(len(p.pack)) {
		return nil
	}
	return p.pack[off:min(off+headerBytes, int64(len(p.pack)))]
}

// packedSizeLocked reads the size of object h from the header of its
// entry in the repository's mapped packs. r.mu must be held.
func (r *repo) packedSizeLocked(h plumbing.Hash) (int64, bool) {
	return r.packsLocked().size(h)
}

// refreshPacksLocked maps the packs written since the repository's packs
// were mapped, or maps them all the first time, and lets go of those
// deleted (packsync.go). A walk calls it before it reads its first tree,
// so that objects a fetch brought are read from their pack too. r.mu must
// be held.
func (r *repo) refreshPacksLocked() {
	hc := r.historyLocked()
	if hc.packs == nil {
		hc.packs = r.openPackReaderLocked()
	}
	r.syncPacksLocked()
}

// size returns the size of object h when a mapped pack holds it and its
// entry reads as expected.
func (pr *packReader) size(h plumbing.Hash) (int64, bool) {
	i, off, ok := pr.locate(h)
	if !ok {
		return 0, false
	}
	size, err := pr.entrySize(pr.packs[i], off)
	return size, err == nil
}

// locate returns which of pr.packs holds object h, and its offset there.
func (pr *packReader) locate(h plumbing.Hash) (int, int64, bool) {
	for i, p := range pr.packs {
		if off, ok := p.index.offset(h); ok {
			return i, off, true
		}
	}
	return 0, 0, false
}

// entrySize reads the size of the object stored at offset off of pack p:
// from the entry's header, or for a delta from the delta's own header
// (the size of its base, then the size of the result), which takes
// inflating the delta's first bytes.
func (pr *packReader) entrySize(p *mappedPack, off int64) (int64, error) {
	b := pr.entryStart(p, off)
	if len(b) == 0 {
		return 0, errPackFormat
	}
	size, used, ok := uvarint(b, b[0]&0xf, 4)
	if !ok {
		return 0, errPackFormat
	}
	switch plumbing.ObjectType(b[0] >> 4 & 7) {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		return int64(size), nil
	case plumbing.OFSDeltaObject:
		_, skip, err := ofsDeltaOffset(b, int64(used))
		if err != nil {
			return 0, err
		}
		used += skip
	case plumbing.REFDeltaObject:
		used += len(plumbing.ZeroHash)
	default:
		return 0, errPackFormat
	}
	// The inflater decodes as much of a block as its window holds, not
	// just the bytes asked for: given the delta's first bytes only, it
	// stops at their end, and the header is in them unless a large
	// Huffman table comes first. Given the rest of the pack, it inflated
	// about 2.5 times as much as a listing needed.
	if used < len(b) {
		if size, err := pr.deltaSize(b[used:]); err == nil {
			return size, nil
		}
	}
	if at := off + int64(used); at < int64(len(p.pack)) {
		return pr.deltaSize(p.pack[at:])
	}
	return 0, errPackFormat
}

// deltaSize inflates the start of the delta at the start of b and decodes
// the size of its result. Input cut short only leaves the answer unknown:
// the inflater hands out what it decoded before the input ran out.
//
// The delta's first bytes are read by hand (inflatehead.go), first as
// many as two sizes under 256 MiB take; compress/flate reads what that
// does not.
func (pr *packReader) deltaSize(b []byte) (int64, error) {
	var out [20]byte
	n, err := inflateHead(b, out[:8])
	if err == nil && n == 8 {
		if size, ok := deltaResultSize(out[:n]); ok {
			return size, nil
		}
		n, err = inflateHead(b, out[:])
	}
	if errors.Is(err, errInflateHead) {
		zr, err := pr.inflater(b)
		if err != nil {
			return 0, err
		}
		n, _ = io.ReadFull(zr, out[:])
	}
	if size, ok := deltaResultSize(out[:n]); ok {
		return size, nil
	}
	return 0, errPackFormat
}

// deltaResultSize decodes the size of a delta's result from the delta's
// first bytes: the size of its base, then the size of the result.
func deltaResultSize(head []byte) (int64, bool) {
	_, skip, ok := uvarint(head, 0, 0)
	if !ok {
		return 0, false
	}
	size, _, ok := uvarint(head[skip:], 0, 0)
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
	// Names are compared by their first eight bytes as a number, which
	// settles all but the last steps of a search: a listing looks up every
	// file it sizes, and bytes.Compare's call was most of the search.
	key := binary.BigEndian.Uint64(h[:8])
	found := false
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		name := names[20*m : 20*m+20]
		c := cmp.Compare(binary.BigEndian.Uint64(name), key)
		if c == 0 {
			c = bytes.Compare(name[8:], h[8:])
		}
		switch {
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
