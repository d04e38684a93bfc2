package workspace

import (
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// BlobReader is an independent handle on a workspace's object store that
// reads whole blobs by id, for a tool that reads many blobs at its own pace
// (the text indexer) without holding the workspace's lock. Several readers
// of one workspace read in parallel; one reader's reads are serialized
// (go-git's pack readers are not safe for concurrent use).
//
// A blob id says nothing about where the blob is: the caller must have
// found it in an authorized [Snapshot] listing (Entry.SHA) first.
type BlobReader struct {
	ws *Workspace
	mu sync.Mutex
	r  *repo
}

// OpenBlobReader opens a BlobReader with the same protections as the
// workspace's own handle (alternates are not followed; the git directory
// is bounded). cacheBytes sizes its object cache. Close it when done.
func (w *Workspace) OpenBlobReader(cacheBytes int64) (*BlobReader, error) {
	layout, err := findGitDir(w.root)
	if err != nil {
		return nil, w.scrub(err)
	}
	// Blobs above streamBlobBytes are streamed from the pack rather than
	// inflated whole, so that learning the size of a large blob costs
	// nothing.
	r, err := openRepo(layout, cacheBytes, streamBlobBytes)
	if err != nil {
		return nil, w.scrub(err)
	}
	return &BlobReader{ws: w, r: r}, nil
}

// streamBlobBytes is the size above which a BlobReader streams a blob.
const streamBlobBytes = 1 << 20

// Read returns the content of blob sha and its size, or only its size
// (nil data) when the blob is larger than max bytes. One object lookup
// serves both: packs are searched before loose objects, which costs a
// failed open per packed blob otherwise.
func (b *BlobReader) Read(sha string, max int64) ([]byte, int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	obj, err := b.r.storage.EncodedObject(plumbing.BlobObject, plumbing.NewHash(sha))
	if err != nil {
		return nil, 0, b.ws.objectError(sha, err)
	}
	size := obj.Size()
	if size > max {
		return nil, size, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, 0, b.ws.objectError(sha, err)
	}
	defer rd.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, 0, b.ws.objectError(sha, err)
	}
	return data, size, nil
}

// Close releases the handle's files.
func (b *BlobReader) Close() error { return b.r.close() }
