package workspace

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// Reading a blob from the mapped packs.
//
// go-git reads a packed object by first decoding the pack's whole .idx into
// maps of its own: about a tenth of a new process's first read_file. The
// repository maps its packs anyway (historypack.go), so a blob of moderate
// size is read from them here: the .idx gives its offset, the entry is
// inflated, and deltas are resolved along their chain. It is done outside
// r.mu, so that a large inflation does not hold up other callers, by a
// view of the packs: a reader of its own (inflater and cache of delta
// bases) over the same mappings. The blob's SHA-1 is checked before it is
// returned, since a damaged pack can inflate to bytes of the right length
// that are not the blob's. What the packs do not hold, or hold larger than
// maxPackedBlob, is read through go-git as before.

const (
	// maxPackedBlob is the largest blob read from the mapped packs: such a
	// blob is read whole, where go-git's reader inflates only the part a
	// read asks for, which a page of a large file is.
	maxPackedBlob = 1 << 20
	// viewCacheBytes bounds the cache of delta bases of each view, and
	// maxIdleViews the views kept between reads.
	viewCacheBytes = 4 << 20
	maxIdleViews   = 4
)

// errBlobDamaged says the packs gave bytes that are not the blob asked for.
var errBlobDamaged = errors.New("pack data does not hash to the object's id")

// readPackedBlob reads blob h whole from the mapped packs. found is false
// when they do not hold it (or hold it larger than maxPackedBlob): go-git
// must read it. An error means they hold it and it could not be read
// intact; it is not retried through go-git, which would read the same
// damaged pack without checking what it gave.
func (r *repo) readPackedBlob(h plumbing.Hash) (data []byte, found bool, err error) {
	r.mu.Lock()
	pr := r.packsLocked()
	// The size first, from the entry's header (a delta's too): a large
	// blob stored as a delta would otherwise have its bases inflated
	// before its size showed, and then again by go-git.
	i, off, ok := pr.locate(h)
	if !ok {
		r.mu.Unlock()
		return nil, false, nil
	}
	if size, err := pr.entrySize(pr.packs[i], off); err == nil && size > maxPackedBlob {
		r.mu.Unlock()
		return nil, false, nil
	}
	v := pr.checkout()
	r.mu.Unlock()
	defer pr.checkin(v)
	typ, data, err := v.read(h, maxPackedBlob)
	switch {
	case errors.Is(err, errPackMiss):
		return nil, false, nil
	case err != nil:
		return nil, true, fmt.Errorf("blob %s: %w", h, err)
	case typ != plumbing.BlobObject:
		return nil, true, fmt.Errorf("object %s is a %s, not a blob", h, typ)
	case plumbing.ComputeHash(plumbing.BlobObject, data) != h:
		return nil, true, fmt.Errorf("blob %s: %w", h, errBlobDamaged)
	}
	return data, true, nil
}

// checkout returns a view of pr's packs for one read outside r.mu, which
// the caller hands back with checkin. The packs stay mapped until then:
// close waits for every view out. r.mu must be held.
func (pr *packReader) checkout() *packReader {
	pr.live.RLock()
	pr.idleMu.Lock()
	var v *packReader
	if n := len(pr.idle); n > 0 {
		v, pr.idle = pr.idle[n-1], pr.idle[:n-1]
	}
	pr.idleMu.Unlock()
	if v == nil {
		v = &packReader{cache: make(map[packPos]packObject), cacheLimit: viewCacheBytes}
	}
	// Packs only ever join the end of pr.packs, so a view's cache keys
	// still name the same packs; new ones are seen from here on.
	v.packs = pr.packs
	return v
}

// checkin takes back a view checkout gave out. The view joins the idle
// ones before the read lock on the packs is released: dropDeleted, which
// renumbers the packs, empties the idle views once it has the lock, and a
// view put back after that would keep delta bases under old pack numbers.
func (pr *packReader) checkin(v *packReader) {
	v.packs = nil
	pr.idleMu.Lock()
	if len(pr.idle) < maxIdleViews {
		pr.idle = append(pr.idle, v)
	}
	pr.idleMu.Unlock()
	pr.live.RUnlock()
}
