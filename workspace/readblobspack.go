package workspace

import (
	"cmp"
	"context"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// packedRef is one ref of a bulk read, with where its claimed blob lies
// in the mapped packs.
type packedRef struct {
	i    int // index in the refs read
	hash plumbing.Hash
	pack int // -1: in no mapped pack (loose, or packs are not mapped)
	off  int64
}

// readPacked is ReadBlobs' bulk path for a commit: each worker has a
// handle of its own with its own reader of the mapped packs (history's,
// historypack.go), and the blobs are read in the order they lie in the
// packs. A delta's base always lies before it, so in that order the
// bases a chain shares were just read and are still in the reader's
// cache, where go-git's reader, asked in path order, inflated them again
// and again. Workers take runs of consecutive blobs, so each keeps most
// of that locality. Every ref gets ReadBlob's checks before it is read;
// a blob the mapped packs do not hold is read through go-git.
func (s *Snapshot) readPacked(ctx context.Context, refs []BlobRef, maxBytes int64, workers int, fn func(i int, data []byte, size int64, err error) error) error {
	handles, err := s.openHandles(workers)
	if err != nil {
		return err
	}
	defer closeHandles(handles)
	hs := make([]*repo, workers)
	for k := range hs {
		hs[k] = <-handles
	}
	defer func() {
		for _, h := range hs {
			handles <- h
		}
	}()
	// One mapping of the packs, so that a pack number means the same pack
	// to every worker even if git repacks meanwhile; a reader each, for
	// its cache and inflater are not safe for concurrent use.
	hs[0].mu.Lock()
	first := hs[0].openPackReaderLocked()
	hs[0].mu.Unlock()
	defer first.close() // unmapping read-only files: its error says nothing
	readers := []*packReader{first}
	for len(readers) < workers {
		readers = append(readers, &packReader{packs: first.packs, cache: make(map[packPos]packObject)})
	}
	order := locatePacked(refs, first)
	run := max(bulkReadRefs, len(order)/(8*workers)) // refs a worker takes at once
	g, gctx := errgroup.WithContext(ctx)
	next := make(chan []packedRef)
	g.Go(func() error {
		defer close(next)
		for len(order) > 0 {
			n := min(run, len(order))
			select {
			case next <- order[:n]:
			case <-gctx.Done():
				return gctx.Err()
			}
			order = order[n:]
		}
		return nil
	})
	for k, pr := range readers {
		g.Go(func() error {
			h := hs[k]
			for batch := range next {
				for _, p := range batch {
					if err := gctx.Err(); err != nil {
						return err
					}
					data, size, err := s.readPackedRef(h, pr, refs[p.i], p, maxBytes)
					if err := fn(p.i, data, size, err); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// locatePacked returns the refs in the order their claimed blobs lie in
// pr's packs, those it does not find last. A ref whose id is malformed is
// left where it is: its check fails before anything is read.
func locatePacked(refs []BlobRef, pr *packReader) []packedRef {
	order := make([]packedRef, len(refs))
	for i, ref := range refs {
		p := packedRef{i: i, pack: -1}
		if plumbing.IsHash(ref.SHA) {
			p.hash = plumbing.NewHash(ref.SHA)
			for k, mp := range pr.packs {
				if off, ok := mp.index.offset(p.hash); ok {
					p.pack, p.off = k, off
					break
				}
			}
		}
		order[i] = p
	}
	slices.SortStableFunc(order, func(a, b packedRef) int {
		if c := cmp.Compare(uint(a.pack), uint(b.pack)); c != 0 {
			return c // uint: -1, no pack, sorts last
		}
		return cmp.Compare(a.off, b.off)
	})
	return order
}

// readPackedRef checks ref as ReadBlob would, then reads its blob from the
// mapped packs, or through go-git on h when they do not have it whole
// (not there, or over maxBytes: go-git then tells the size without
// inflating it).
func (s *Snapshot) readPackedRef(h *repo, pr *packReader, ref BlobRef, p packedRef, maxBytes int64) ([]byte, int64, error) {
	if err := s.checkRef(ref); err != nil {
		return nil, 0, err
	}
	if p.pack >= 0 {
		typ, data, err := pr.objectAt(p.pack, p.off, maxBytes, 0)
		if err == nil && typ == plumbing.BlobObject {
			return data, int64(len(data)), nil
		}
	}
	return s.readStored(h, p.hash, maxBytes)
}

// checkRef makes ReadBlob's checks of one ref of a commit snapshot: its
// id is a full SHA, its path is one the grant may read, and the path
// holds a file with that id at this revision.
func (s *Snapshot) checkRef(ref BlobRef) error {
	if !plumbing.IsHash(ref.SHA) {
		return errclass.Errorf(errclass.InvalidInput, "blob id %s is not a full SHA", quoteInput(ref.SHA))
	}
	clean, err := s.Authorize(ref.Path, false)
	if err != nil {
		return err
	}
	te, err := s.src.(*commitSource).lookup(clean)
	if err != nil {
		return err
	}
	if te.hash.String() != ref.SHA {
		return errclass.Errorf(errclass.NotFound, "path %s does not hold blob %s at this revision", quoteInput(clean), ref.SHA)
	}
	if e := typedEntry(te); e.Type != TypeFile {
		return errclass.Errorf(errclass.InvalidInput, "path %s is a %s, not a file", quoteInput(clean), e.Type)
	}
	return nil
}
