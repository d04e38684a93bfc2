package workspace

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// packReader reads objects straight from a repository's pack files,
// mapped into memory, for the walks of history: a path-limited log reads
// a few trees of every commit, and go-git's reader spent most of that
// time on read system calls, copies, and hashing each object to cache it.
// It takes the packs with version 2 indexes that the storage lists when
// it is opened; an object it does not find (loose, in a pack written
// later, in an alternate) is read through go-git instead, so a miss is
// never an error. Objects are immutable, and a pack that git gc deletes
// later still reads through its mapping until the next walk finds it gone
// and unmaps it (dropDeleted). It is not safe for concurrent
// use; repo.mu guards it.
type packReader struct {
	packs []*mappedPack
	// listed holds the names of the packs tried, mapped or not.
	listed map[plumbing.Hash]bool
	// headers is what sizes are read from (listsize.go).
	headers headerWindow
	// cache holds recently resolved objects by pack and offset: the bases
	// that chains of deltas share. It is bounded by maxPackCacheBytes and
	// emptied when full, like the repo's other caches.
	cache      map[packPos]packObject
	cacheBytes int
	// cacheLimit, when set, bounds the cache instead of maxPackCacheBytes.
	cacheLimit int
	// src and zr inflate entries, reset for each.
	src bytes.Reader
	zr  io.ReadCloser
	// live is held for reading by each view out (packblob.go), which reads
	// the mappings without r.mu; close takes it to unmap them. idle holds
	// views between reads, under idleMu.
	live   sync.RWMutex
	idleMu sync.Mutex
	idle   []*packReader
}

type packPos struct {
	pack int
	off  int64
}

type packObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// mappedPack is one pack, mapped, and its index (listsize.go's parser,
// over the mapped .idx).
type mappedPack struct {
	name  plumbing.Hash
	index *packIndex
	pack  []byte
	unmap func() error
	// file is the pack, open to read entry headers with (listsize.go);
	// nil when it could not be opened.
	file billy.File
}

const (
	maxPackCacheBytes = 32 << 20
	// maxDeltaDepth bounds a chain of deltas (git's default depth is 50,
	// its aggressive gc's 250).
	maxDeltaDepth = 4096
)

// errPackMiss says the packs do not hold an object (or hold it larger
// than asked); the caller reads it through go-git.
var errPackMiss = errors.New("object not in the mapped packs")

// openPackReaderLocked maps every pack the storage lists. A pack that
// cannot be mapped is left to go-git. r.mu must be held.
func (r *repo) openPackReaderLocked() *packReader {
	pr := &packReader{cache: make(map[packPos]packObject), listed: make(map[plumbing.Hash]bool)}
	if names, err := r.storage.ObjectPacks(); err == nil {
		pr.addPacks(r, names)
	}
	return pr
}

// addPacks maps the packs the storage lists that pr has not tried yet:
// when it is opened, every one; later, those written since (a fetch, a
// repack), which walks look for (refreshPacksLocked), and it unmaps those
// the storage no longer lists (names, the storage's list). Packs mapped
// keep their place in pr.packs, which the cache's keys count on, until one
// is dropped. r.mu must be held.
func (pr *packReader) addPacks(r *repo, names []plumbing.Hash) {
	pr.dropDeleted(names)
	fs := r.storage.Filesystem()
	for _, name := range names {
		if pr.listed[name] {
			continue
		}
		pr.listed[name] = true
		if p, err := mapPack(fs, name); err == nil {
			pr.packs = append(pr.packs, p)
		}
	}
}

func packFile(fs billy.Filesystem, name plumbing.Hash, ext string) string {
	return fs.Join("objects", "pack", "pack-"+name.String()+"."+ext)
}

func mapPack(fs billy.Filesystem, name plumbing.Hash) (*mappedPack, error) {
	idx, unmapIdx, err := mapFile(fs, packFile(fs, name, "idx"))
	if err != nil {
		return nil, err
	}
	index, err := parsePackIndex(idx)
	if err != nil {
		return nil, errors.Join(err, unmapIdx())
	}
	pack, unmapPack, err := mapFile(fs, packFile(fs, name, "pack"))
	if err != nil {
		return nil, errors.Join(err, unmapIdx())
	}
	if len(pack) < 12 || string(pack[:4]) != "PACK" {
		return nil, errors.Join(errPackFormat, unmapIdx(), unmapPack())
	}
	p := &mappedPack{name: name, index: index, pack: pack, unmap: func() error { return errors.Join(unmapIdx(), unmapPack()) }}
	if f, err := fs.Open(packFile(fs, name, "pack")); err == nil {
		p.file = f
	}
	return p, nil
}

// read returns object h and its type, or errPackMiss. An object larger
// than max bytes is a miss too, found out before it is inflated.
func (pr *packReader) read(h plumbing.Hash, max int64) (plumbing.ObjectType, []byte, error) {
	for i, p := range pr.packs {
		if off, ok := p.index.offset(h); ok {
			return pr.objectAt(i, off, max, 0)
		}
	}
	return plumbing.InvalidObject, nil, errPackMiss
}

// objectAt reads the object at off of pack i, resolving deltas.
func (pr *packReader) objectAt(i int, off, max int64, depth int) (plumbing.ObjectType, []byte, error) {
	pos := packPos{i, off}
	if o, ok := pr.cache[pos]; ok {
		if int64(len(o.data)) > max {
			return plumbing.InvalidObject, nil, errPackMiss
		}
		return o.typ, o.data, nil
	}
	if depth > maxDeltaDepth {
		return plumbing.InvalidObject, nil, errors.New("delta chain too deep")
	}
	p := pr.packs[i]
	typ, size, n, err := entryHeader(p.pack, off)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	at := off + int64(n)
	var base []byte
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		if size > max {
			return plumbing.InvalidObject, nil, errPackMiss
		}
	case plumbing.OFSDeltaObject:
		rel, n, err := ofsDeltaOffset(p.pack, at)
		if err != nil || rel <= 0 || rel > off {
			return plumbing.InvalidObject, nil, fmt.Errorf("bad delta base offset at %d", off)
		}
		at += int64(n)
		// A base is bounded by what its delta can make of it only
		// loosely: copies address at most 2^32 bytes of it.
		if typ, base, err = pr.objectAt(i, off-rel, 1<<32, depth+1); err != nil {
			return plumbing.InvalidObject, nil, err
		}
	case plumbing.REFDeltaObject:
		var bh plumbing.Hash
		if at+int64(len(bh)) > int64(len(p.pack)) {
			return plumbing.InvalidObject, nil, io.ErrUnexpectedEOF
		}
		copy(bh[:], p.pack[at:])
		at += int64(len(bh))
		if typ, base, err = pr.read(bh, 1<<32); err != nil {
			return plumbing.InvalidObject, nil, err
		}
	default:
		return plumbing.InvalidObject, nil, fmt.Errorf("unknown pack entry type %d at %d", typ, off)
	}
	data, err := pr.inflate(p.pack[at:], size)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("pack entry at %d: %w", off, err)
	}
	if base != nil {
		if data, err = applyDelta(base, data, max); err != nil {
			return plumbing.InvalidObject, nil, err
		}
	}
	pr.remember(pos, typ, data)
	return typ, data, nil
}

// remember caches a resolved object, unless it would take more than an
// eighth of the budget.
func (pr *packReader) remember(pos packPos, typ plumbing.ObjectType, data []byte) {
	limit := maxPackCacheBytes
	if pr.cacheLimit > 0 {
		limit = pr.cacheLimit
	}
	if len(data) > limit/8 {
		return
	}
	if pr.cacheBytes+len(data) > limit {
		clear(pr.cache)
		pr.cacheBytes = 0
	}
	pr.cache[pos] = packObject{typ, data}
	pr.cacheBytes += len(data)
}

// entryHeader decodes a pack entry's type and inflated size, and how many
// bytes the header took.
func entryHeader(pack []byte, off int64) (plumbing.ObjectType, int64, int, error) {
	if off < 12 || off >= int64(len(pack)) {
		return 0, 0, 0, fmt.Errorf("pack offset %d out of range", off)
	}
	b := pack[off:min(off+16, int64(len(pack)))]
	size, n, ok := uvarint(b, b[0]&0xf, 4)
	if !ok || size > 1<<62 {
		return 0, 0, 0, fmt.Errorf("bad pack entry header at %d", off)
	}
	return plumbing.ObjectType(b[0] >> 4 & 7), int64(size), n, nil
}

// ofsDeltaOffset decodes the distance back to an offset delta's base: a
// big-endian base-128 number in which each continuation also adds one,
// unlike uvarint's.
func ofsDeltaOffset(pack []byte, at int64) (int64, int, error) {
	b := pack[at:min(at+10, int64(len(pack)))]
	if len(b) == 0 {
		return 0, 0, io.ErrUnexpectedEOF
	}
	c := b[0]
	rel, n := int64(c&0x7f), 1
	for c&0x80 != 0 {
		if n >= len(b) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		c = b[n]
		n++
		rel = (rel+1)<<7 | int64(c&0x7f)
	}
	return rel, n, nil
}

// inflate decompresses the zlib stream at the start of b, which must give
// at least size bytes; the stream is not read past them. The inflater is
// reused: a new one allocates a 32 KiB window, which was most of the cost
// of reading a small tree.
func (pr *packReader) inflate(b []byte, size int64) ([]byte, error) {
	zr, err := pr.inflater(b)
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// inflater returns the reader's inflater, reset to the zlib stream at the
// start of b.
func (pr *packReader) inflater(b []byte) (io.Reader, error) {
	pr.src.Reset(b)
	if pr.zr == nil {
		zr, err := zlib.NewReader(&pr.src)
		if err != nil {
			return nil, err
		}
		pr.zr = zr
	} else if err := pr.zr.(zlib.Resetter).Reset(&pr.src, nil); err != nil {
		return nil, err
	}
	return pr.zr, nil
}

// applyDelta rebuilds an object from its base and a git delta: the base's
// size and the result's, then copy and insert instructions. A result
// larger than max is errPackMiss.
func applyDelta(base, delta []byte, max int64) ([]byte, error) {
	srcSize, n, ok := uvarint(delta, 0, 0)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errors.New("delta does not match its base")
	}
	delta = delta[n:]
	size, n, ok := uvarint(delta, 0, 0)
	if !ok || size > 1<<62 {
		return nil, errors.New("bad delta header")
	}
	delta, dstSize := delta[n:], int64(size)
	if dstSize > max {
		return nil, errPackMiss
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n int64
			for bit := range 7 {
				if op&(1<<bit) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, errors.New("truncated delta copy")
				}
				if bit < 4 {
					off |= int64(delta[0]) << (8 * bit)
				} else {
					n |= int64(delta[0]) << (8 * (bit - 4))
				}
				delta = delta[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > int64(len(base)) || int64(len(out))+n > dstSize {
				return nil, errors.New("delta copy out of range")
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			if int(op) > len(delta) || int64(len(out))+int64(op) > dstSize {
				return nil, errors.New("delta insert out of range")
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, errors.New("reserved delta opcode 0")
		}
	}
	if int64(len(out)) != dstSize {
		return nil, errors.New("delta result has the wrong size")
	}
	return out, nil
}

// dropDeleted unmaps the packs that are not among names: a repack or gc
// deleted their files, whose disk space the mappings would otherwise hold
// until the repository is closed. It waits for the views out, and empties
// the caches whose keys count packs by their place. r.mu must be held.
func (pr *packReader) dropDeleted(names []plumbing.Hash) {
	keep := make([]*mappedPack, 0, len(pr.packs))
	var gone []*mappedPack
	for _, p := range pr.packs {
		if slices.Contains(names, p.name) {
			keep = append(keep, p)
		} else {
			gone = append(gone, p)
		}
	}
	if len(gone) == 0 {
		return
	}
	pr.live.Lock()
	defer pr.live.Unlock()
	pr.packs = keep
	clear(pr.cache)
	pr.cacheBytes = 0
	pr.headers.pack = nil
	pr.idleMu.Lock()
	pr.idle = nil
	pr.idleMu.Unlock()
	for _, p := range gone {
		delete(pr.listed, p.name)
		// Unmapping read-only files, and closing them: errors say nothing.
		_ = p.unmap()
		if p.file != nil {
			_ = p.file.Close()
		}
	}
}

// close unmaps and closes the packs, once no view reads them.
func (pr *packReader) close() error {
	pr.live.Lock()
	defer pr.live.Unlock()
	var errs []error
	for _, p := range pr.packs {
		errs = append(errs, p.unmap())
		if p.file != nil {
			errs = append(errs, p.file.Close())
		}
	}
	pr.packs = nil
	clear(pr.cache)
	return errors.Join(errs...)
}

// mapFile maps a whole file of the repository's filesystem read-only.
func mapFile(fs billy.Filesystem, name string) ([]byte, func() error, error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	osf, ok := f.(interface {
		Fd() uintptr
		Stat() (os.FileInfo, error)
	})
	if !ok {
		return nil, nil, errors.New("not a file of the operating system")
	}
	fi, err := osf.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 || fi.Size() != int64(int(fi.Size())) {
		return nil, nil, errors.New("empty, or too large to map")
	}
	return mapFD(osf.Fd(), int(fi.Size()))
}
