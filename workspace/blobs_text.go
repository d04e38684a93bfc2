package workspace

import (
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
	r, err := openRepo(layout, cacheBytes, 0)
	if err != nil {
		return nil, w.scrub(err)
	}
	return &BlobReader{ws: w, r: r}, nil
}

// Read returns the content of blob sha and its size, or only its size
// (nil data) when the blob is larger than max bytes.
func (b *BlobReader) Read(sha string, max int64) ([]byte, int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := plumbing.NewHash(sha)
	size, err := b.r.storage.EncodedObjectSize(h)
	if err != nil {
		return nil, 0, b.ws.objectError(sha, err)
	}
	if size > max {
		return nil, size, nil
	}
	data, _, err := b.r.readBlobLocked(h, 0, size)
	if err != nil {
		return nil, 0, b.ws.objectError(sha, err)
	}
	return data, size, nil
}

// Close releases the handle's files.
func (b *BlobReader) Close() error { return b.r.close() }
