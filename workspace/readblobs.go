package workspace

import (
	"context"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"
)

// BlobRef names a file of a snapshot for [Snapshot.ReadBlobs]: its path
// and the blob id a walk of the snapshot reported for it (empty in the
// working tree).
type BlobRef struct {
	Path string
	SHA  string
}

// Batches of more than bulkReadRefs blobs of a commit are read on handles
// of their own, from the mapped packs (readblobspack.go); the handles'
// object caches, of bulkCacheBytes, serve the blobs the packs do not
// hold. Smaller batches go through the workspace's handle, which costs
// nothing to open.
const (
	bulkReadRefs   = 64
	bulkCacheBytes = 16 << 20
)

// ReadBlobs reads many files of the snapshot, as [Snapshot.ReadBlob] reads
// one: each path is authorized and must hold the given id at this
// revision. It is for indexers that read thousands of blobs: a large batch
// of a commit is read on up to workers independent handles on the object
// store, in the order the blobs lie in its packs, so that inflating one
// blob neither waits for another nor holds up the workspace's other
// callers, and delta bases are inflated once.
//
// fn is called once per ref, in no particular order and from up to workers
// goroutines at once, with the ref's index, the content and the file's
// size, or the error reading it (a file removed from the working tree
// since it was listed is one); the content is nil when the file is over
// maxBytes. fn must not modify the content, which may be shared with a
// cache of the batch. The first error fn returns ends the batch and is
// returned.
func (s *Snapshot) ReadBlobs(ctx context.Context, refs []BlobRef, maxBytes int64, workers int, fn func(i int, data []byte, size int64, err error) error) error {
	workers = max(min(workers, len(refs)), 1)
	if s.rev.SHA != WorktreeRevision && len(refs) > bulkReadRefs {
		return s.readPacked(ctx, refs, maxBytes, workers, fn)
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
			for i := range next {
				data, size, err := s.readOne(ctx, refs[i], maxBytes)
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

// readStored reads blob hash through go-git on handle h: nil content
// and the size when it is over maxBytes.
func (s *Snapshot) readStored(h *repo, hash plumbing.Hash, maxBytes int64) ([]byte, int64, error) {
	ws := s.grant.ws
	obj, err := h.storage.EncodedObject(plumbing.BlobObject, hash)
	if err != nil {
		return nil, 0, ws.objectError(hash.String(), err)
	}
	size := obj.Size()
	if size > maxBytes {
		return nil, size, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, 0, ws.objectError(hash.String(), err)
	}
	defer rd.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, 0, ws.objectError(hash.String(), err)
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
