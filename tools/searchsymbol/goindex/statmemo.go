package goindex

import (
	"sync"
	"time"
)

// statMemo remembers, per working tree, the blob ids of its files by
// their size and modification time, so that indexing a working tree again
// reads only the files that changed. Like git's index, it distrusts a file
// modified shortly before it was read (its time stamp might not change on a
// later write): such a file is read again next time.
type statMemo struct {
	mu   sync.Mutex
	dirs map[any]map[string]statEntry // source key -> path -> entry
}

type statEntry struct {
	size, modTime int64 // as walked
	id            string
	readAt        int64 // when the contents were read, Unix nanoseconds
}

// racyWindow covers the coarsest file time stamps in common use.
const racyWindow = int64(2 * time.Second)

// lookup returns the blob id recorded for f, if f is unchanged since.
func (m *statMemo) lookup(dir any, f File) (statEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.dirs[dir][f.Path]
	if !ok || e.size != f.Size || e.modTime != f.ModTime || e.modTime >= e.readAt-racyWindow {
		return statEntry{}, false
	}
	return e, true
}

// replace records the files of the latest build of dir, dropping the rest.
func (m *statMemo) replace(dir any, entries map[string]statEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs == nil {
		m.dirs = make(map[any]map[string]statEntry)
	}
	m.dirs[dir] = entries
}

// memoKeyer is implemented by sources whose files can be recognized by
// their size and modification time. The key is comparable and names one
// tree for as long as the memo holds it.
type memoKeyer interface {
	memoKey() (key any, ok bool)
}

// memoKey is the workspace itself for a working tree: the memo keeps it,
// so the key never names another; a commit's files have ids and need no memo.
func (s *SnapshotSource) memoKey() (any, bool) {
	return s.snap.Workspace(), s.worktree()
}
