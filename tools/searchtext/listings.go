package searchtext

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// maxListings bounds the commit listings kept: a listing of a tree the
// size of Go's standard library is about a megabyte.
const maxListings = 16

// listings keeps the file lists of recent searches of commits, so that a
// warm search does not walk the tree again: listing 11,000 files costs
// more than answering a query from the index. A commit's tree never
// changes, and a registry's policies do not change while it is open, so
// a listing is keyed by what decides it: the workspace, the commit, the
// caller and action, and the path filters. Safe for concurrent use.
type listings struct {
	mu    sync.Mutex
	items map[string]*listing
	order []string // oldest first
}

type listing struct {
	files    []fileRef // shared: never modified
	tooLarge int
	blobs    []textindex.Blob // the files' blobs, in order
	canon    []int32          // canonicalFiles(files)
	// resolved locates blobs in the index, for as long as the index does
	// not change: a warm search then reads posting lists and nothing else
	// to find its candidates.
	resolved atomic.Pointer[textindex.Resolved]
}

func newListings() *listings { return &listings{items: make(map[string]*listing)} }

// list returns listFiles of a commit snapshot, from the cache when it is
// there.
func (l *listings) list(ctx context.Context, snap *workspace.Snapshot, in SearchTextIn, f *pathFilter, maxBytes int64) (*listing, error) {
	acc := snap.Access()
	key := strings.Join([]string{snap.Workspace().ID(), snap.Revision().SHA, acc.Identity, string(acc.Action),
		strings.Join(in.Include, "\x01"), strings.Join(in.Exclude, "\x01"), strings.Join(in.Languages, "\x01")}, "\x00")
	l.mu.Lock()
	got, ok := l.items[key]
	l.mu.Unlock()
	if ok {
		return got, nil
	}
	files, tooLarge, err := listFiles(ctx, snap, f, maxBytes)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if got, ok := l.items[key]; ok {
		return got, nil
	}
	if len(l.order) == maxListings {
		delete(l.items, l.order[0])
		l.order = l.order[1:]
	}
	got = &listing{files: files, tooLarge: tooLarge, blobs: blobsOf(files), canon: canonicalFiles(files)}
	l.items[key] = got
	l.order = append(l.order, key)
	return got, nil
}
