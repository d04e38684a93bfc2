package workspace

import (
	"context"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// BlobRef names a file of a snapshot for [Snapshot.ReadBlobs]: its path
// and the blob id a walk of the snapshot reported for it (empty in the
// working tree).
type BlobRef struct {
	Path string
	SHA  string
}

// Batches of more than bulkReadRefs blobs are read on handles of their
// own, each with an object cache of bulkCacheBytes (deltas resolve against
// recently read bases); smaller ones go through the workspace's handle,
// which costs nothing to open.
const (
	bulkReadRefs   = 64
	bulkCacheBytes = 16 << 20
)

// ReadBlobs reads many files of the snapshot, as [Snapshot.ReadBlob] reads
// one: each path is authorized and must hold the given id at this
// revision. It is for indexers that read thousands of blobs: a large batch
// is read on up to workers independent handles on the object store, so
// that inflating one blob neither waits for another nor holds up the
// workspace's other callers.
//
// fn is called once per ref, in no particular order and from up to workers
// goroutines at once, with the ref's index, the content and the file's
// size, or the error reading it (a file removed from the working tree
// since it was listed is one); the content is nil when the file is over
// maxBytes. The first error fn returns ends the batch and is returned.
func (s *Snapshot) ReadBlobs(ctx context.Context, refs []BlobRef, maxBytes int64, workers int, fn func(i int, data []byte, size int64, err error) error) error {
	workers = max(min(workers, len(refs)), 1)
	var read func(h *repo, ref BlobRef) ([]byte, int64, error)
	var handles chan *repo
	switch {
	case s.rev.SHA == WorktreeRevision || len(refs) <= bulkReadRefs:
		read = func(_ *repo, ref BlobRef) ([]byte, int64, error) { return s.readOne(ctx, ref, maxBytes) }
	default:
		var err error
		if handles, err = s.openHandles(workers); err != nil {
			return err
		}
		defer closeHandles(handles)
		read = func(h *repo, ref BlobRef) ([]byte, int64, error) { return s.readOnHandle(h, ref, maxBytes) }
	}
	g, gctx := errgroup.WithContext(ctx)
	next := make(chan int)
	g.Go(func() error {
		defer close(next)
		for i := range refs {
			select {
			case next <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range workers {
		g.Go(func() error {
			var h *repo
			if handles != nil {
				h = <-handles
				defer func() { handles <- h }()
			}
			for i := range next {
				data, size, err := read(h, refs[i])
				if err := fn(i, data, size, err); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// readOne reads one file through the snapshot's own read path.
func (s *Snapshot) readOne(ctx context.Context, ref BlobRef, maxBytes int64) ([]byte, int64, error) {
	f, err := s.ReadBlob(ctx, ref.Path, ref.SHA, ReadOptions{Limit: maxBytes})
	switch {
	case err != nil:
		return nil, 0, err
	case f.Truncated:
		return nil, f.Size, nil
	case f.Data == nil:
		return []byte{}, f.Size, nil
	}
	return f.Data, f.Size, nil
}

// readOnHandle reads one blob of the snapshot's commit on handle h, after
// the checks ReadBlob makes.
func (s *Snapshot) readOnHandle(h *repo, ref BlobRef, maxBytes int64) ([]byte, int64, error) {
	if !plumbing.IsHash(ref.SHA) {
		return nil, 0, errclass.Errorf(errclass.InvalidInput, "blob id %s is not a full SHA", quoteInput(ref.SHA))
	}
	clean, err := s.Authorize(ref.Path, false)
	if err != nil {
		return nil, 0, err
	}
	te, err := s.src.(*commitSource).lookup(clean)
	if err != nil {
		return nil, 0, err
	}
	if te.hash.String() != ref.SHA {
		return nil, 0, errclass.Errorf(errclass.NotFound, "path %s does not hold blob %s at this revision", quoteInput(clean), ref.SHA)
	}
	if e := typedEntry(te); e.Type != TypeFile {
		return nil, 0, errclass.Errorf(errclass.InvalidInput, "path %s is a %s, not a file", quoteInput(clean), e.Type)
	}
	ws := s.grant.ws
	obj, err := h.storage.EncodedObject(plumbing.BlobObject, te.hash)
	if err != nil {
		return nil, 0, ws.objectError(ref.SHA, err)
	}
	size := obj.Size()
	if size > maxBytes {
		return nil, size, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, 0, ws.objectError(ref.SHA, err)
	}
	defer rd.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, 0, ws.objectError(ref.SHA, err)
	}
	return data, size, nil
}

// openHandles opens n handles on the workspace's object store, with the
// protections of its own (alternates are not followed; the git directory
// is bounded). Blobs above the large-object threshold are streamed rather
// than inflated whole, so that learning the size of a large blob costs
// nothing.
func (s *Snapshot) openHandles(n int) (chan *repo, error) {
	ws := s.grant.ws
	handles := make(chan *repo, n)
	for range n {
		h, err := openRepo(ws.layout, bulkCacheBytes, largeObjectThreshold)
		if err != nil {
			closeHandles(handles)
			return nil, ws.internalError("opening the repository", err)
		}
		handles <- h
	}
	return handles, nil
}

// closeHandles closes the handles in the channel, which no one else uses
// any more. Their close errors are of read-only files and say nothing.
func closeHandles(handles chan *repo) {
	for {
		select {
		case h := <-handles:
			h.close()
		default:
			return
		}
	}
}
