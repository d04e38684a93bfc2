package searchtext

import (
	"context"
	"strings"
	"sync"

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
	items map[string]listing
	order []string // oldest first
}

type listing struct {
	files    []fileRef // shared: never modified
	tooLarge int
}

func newListings() *listings { return &listings{items: make(map[string]listing)} }

// list returns listFiles of a commit snapshot, from the cache when it is
// there.
func (l *listings) list(ctx context.Context, snap *workspace.Snapshot, in SearchTextIn, f *pathFilter, maxBytes int64) ([]fileRef, int, error) {
	acc := snap.Access()
	key := strings.Join([]string{snap.Workspace().ID(), snap.Revision().SHA, acc.Identity, string(acc.Action),
		strings.Join(in.Include, "\x01"), strings.Join(in.Exclude, "\x01"), strings.Join(in.Languages, "\x01")}, "\x00")
	l.mu.Lock()
	got, ok := l.items[key]
	l.mu.Unlock()
	if ok {
		return got.files, got.tooLarge, nil
	}
	files, tooLarge, err := listFiles(ctx, snap, f, maxBytes)
	if err != nil {
		return nil, 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.items[key]; !ok {
		if len(l.order) == maxListings {
			delete(l.items, l.order[0])
			l.order = l.order[1:]
		}
		l.items[key] = listing{files: files, tooLarge: tooLarge}
		l.order = append(l.order, key)
	}
	return files, tooLarge, nil
}
