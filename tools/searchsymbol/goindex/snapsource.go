package goindex

import (
	"context"
	"io"
	"io/fs"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// SnapshotSource is a [Source] over a commit of a workspace, read through
// the workspace layer: its walk leaves out what the workspace's entry-name
// rules and secret patterns leave out, and files carry their blob ids, so
// the indexer reads only blobs it has not parsed before.
//
// An index is keyed by its revision and shared by every caller, so build
// it from the snapshot's [workspace.Snapshot.Shared] view and filter what a
// search returns with the caller's own snapshot (see [Query.Allow]).
type SnapshotSource struct {
	snap *workspace.Snapshot
}

// NewSnapshotSource returns a source over snap, a commit (the working tree
// is read with a [DirSource]).
func NewSnapshotSource(snap *workspace.Snapshot) *SnapshotSource {
	return &SnapshotSource{snap: snap}
}

// Revision returns the commit id.
func (s *SnapshotSource) Revision() string { return s.snap.Revision().SHA }

// Walk implements [Source]. Trees are read one at a time, so that a
// skipped directory (vendor/, testdata/) costs nothing.
func (s *SnapshotSource) Walk(ctx context.Context, fn func(File) error) error {
	_, err := s.snap.Walk(ctx, "", workspace.WalkOptions{Recursive: true}, func(e workspace.Entry) error {
		switch e.Type {
		case workspace.TypeDir:
			return fn(File{Path: e.Path, Dir: true})
		case workspace.TypeFile:
			if err := fn(File{Path: e.Path, ID: e.SHA}); err != fs.SkipDir {
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
// read in several.
func (s *SnapshotSource) ReadFile(ctx context.Context, f File) ([]byte, error) {
	var data []byte
	for {
		part, err := s.snap.ReadBlob(ctx, f.Path, f.ID, workspace.ReadOptions{Offset: int64(len(data)), Limit: maxRead})
		if err != nil {
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
