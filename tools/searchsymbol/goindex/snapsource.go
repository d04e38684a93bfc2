package goindex

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// SnapshotSource is a [Source] over a revision of a workspace, a commit or
// the working tree, read through the workspace layer: its walk leaves out
// what the workspace's entry-name rules, secret patterns and the snapshot's
// policies leave out. A commit's files carry their blob ids, so the indexer
// reads only blobs it has not parsed before; a working tree's carry their
// size and modification time, by which the indexer recognizes a file it
// has read before (see statMemo).
//
// An index of a commit is keyed by its revision and shared by every
// caller, so build it from the snapshot's [workspace.Snapshot.Shared] view
// and filter what a search returns with the caller's own snapshot (see
// [Query.Allow]). An index of the working tree is built for one search and
// never shared as a whole: build it from the caller's own snapshot, so that
// a file the caller may not read is not read at all.
type SnapshotSource struct {
	snap *workspace.Snapshot
}

// NewSnapshotSource returns a source over snap.
func NewSnapshotSource(snap *workspace.Snapshot) *SnapshotSource {
	return &SnapshotSource{snap: snap}
}

// worktree reports whether the source reads the working tree.
func (s *SnapshotSource) worktree() bool {
	return s.snap.Revision().SHA == workspace.WorktreeRevision
}

// Revision returns the commit id, or "" for the working tree, which may
// change under the indexer.
func (s *SnapshotSource) Revision() string {
	if s.worktree() {
		return ""
	}
	return s.snap.Revision().SHA
}

// Walk implements [Source]. Trees are read one at a time, so that a
// skipped directory (vendor/, testdata/) costs nothing.
func (s *SnapshotSource) Walk(ctx context.Context, fn func(File) error) error {
	_, err := s.snap.Walk(ctx, "", workspace.WalkOptions{Recursive: true}, func(e workspace.Entry) error {
		switch e.Type {
		case workspace.TypeDir:
			return fn(File{Path: e.Path, Dir: true})
		case workspace.TypeFile:
			// A working tree's walk has no ids, but sizes and times.
			f := File{Path: e.Path, ID: e.SHA, Size: max(e.Size, 0), ModTime: e.ModTime}
			if err := fn(f); err != fs.SkipDir {
				return err
			}
		}
		return nil
	})
	return err
}

// maxRead asks for as much of a file as one read may hold: the workspace
// lowers it to its MaxReadBytes.
const maxRead = 1 << 40

// ReadFile implements [Source]. A file larger than one read's budget is
// read in several. In the working tree each read checks the path again.
func (s *SnapshotSource) ReadFile(ctx context.Context, f File) ([]byte, error) {
	id := f.ID
	if s.worktree() {
		// An id in the working tree is the memo's guess from the file's
		// stat; the indexer hashes what it reads, so a file changed since
		// is indexed as it is now rather than refused.
		id = ""
	}
	var data []byte
	for {
		part, err := s.snap.ReadBlob(ctx, f.Path, id, workspace.ReadOptions{Offset: int64(len(data)), Limit: maxRead})
		if err != nil {
			if s.worktree() && errclass.ClassOf(err) == errclass.NotFound {
				// The walk saw it: it was removed (or replaced by what is
				// not a file) since, which the indexer skips.
				return nil, fmt.Errorf("goindex: %s: %w", f.Path, fs.ErrNotExist)
			}
			return nil, err
		}
		if data == nil {
			data = make([]byte, 0, part.Size)
		}
		data = append(data, part.Data...)
		if !part.Truncated {
			return data, nil
		}
		if len(part.Data) == 0 {
			return nil, io.ErrUnexpectedEOF
		}
	}
}
