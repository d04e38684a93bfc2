package goindex

import (
	"crypto/sha256"
	"sync"
)

// treeMemo keeps the index of the working tree last built, by the digest
// of what it was built from: a query on a working tree that has not
// changed since (the common case: one search after another while nobody
// edits) reuses its index instead of assembling the same tables again.
// Commits do not need it: their indexes are cached by revision.
type treeMemo struct {
	mu  sync.Mutex
	key [sha256.Size]byte
	idx *Index // built, never loaded: its tables are on the heap
}

// get returns the memoized index if it was built from key, with facts
// that say this call parsed nothing.
func (m *treeMemo) get(key [sha256.Size]byte) *Index {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.idx == nil || m.key != key {
		return nil
	}
	reused := *m.idx // the tables are immutable and shared
	reused.facts.Reparsed = 0
	return &reused
}

func (m *treeMemo) put(key [sha256.Size]byte, idx *Index) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.key, m.idx = key, idx
}

// contentKey digests everything an index is assembled from: the revision,
// the options, and each file's path, blob id (which determines its parse)
// and import path (which its module's go.mod determines).
func contentKey(rev string, opts Options, files []indexedFile) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(rev + "\x00" + opts.key() + "\x00"))
	for i := range files {
		f := &files[i]
		h.Write([]byte(f.path + "\x00" + f.id + "\x00" + f.importPath + "\x00"))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}
