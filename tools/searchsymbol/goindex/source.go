package goindex

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// A Source is a snapshot of a file tree that the indexer reads: a commit's
// tree (see [SnapshotSource]) or a directory on disk (see [DirSource]). The index
// takes all of its input through this interface, so it never sees how a
// workspace or revision was resolved or authorized.
type Source interface {
	// Revision identifies an immutable snapshot, such as a full commit SHA.
	// It is empty when the snapshot may change under the indexer (a working
	// tree): such indexes are never cached as a whole, only file by file.
	Revision() string

	// Walk calls fn for every directory and regular file of the snapshot in
	// lexical order, with slash-separated paths relative to its root. The
	// root itself is not reported. When fn returns [fs.SkipDir] for a
	// directory, Walk does not descend into it. Symbolic links and
	// submodules are not reported.
	Walk(ctx context.Context, fn func(File) error) error

	// ReadFile returns the contents of a file that Walk reported.
	// The indexer calls it from one goroutine at a time.
	ReadFile(ctx context.Context, f File) ([]byte, error)
}

// File is one entry of a [Source].
type File struct {
	Path string // slash-separated, relative to the snapshot's root
	Dir  bool
	Size int64
	// ModTime is the modification time (Unix nanoseconds) of a file in a
	// directory; zero in a commit.
	ModTime int64
	// ID is the git blob id (hex SHA-1) of the contents when the source
	// knows it without reading the file; empty otherwise, in which case the
	// indexer reads the file and computes it with [BlobID].
	ID string
}

// BlobID returns the git blob id of contents: the hex SHA-1 of
// "blob <len>\x00" followed by the contents. Parsed files are cached under
// this id, so a file in a working tree and the same blob in a commit share
// one cache entry.
func BlobID(contents []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(contents)) + "\x00"))
	h.Write(contents)
	return hex.EncodeToString(h.Sum(nil))
}

// DirSource is a [Source] over a directory on disk, read through an
// [os.Root] so that no path can escape it. It has no revision: each index
// built from it reflects the files as they were read.
type DirSource struct {
	root *os.Root
}

// NewDirSource returns a source over root. The caller keeps ownership of
// root and closes it after the last index build that uses it.
func NewDirSource(root *os.Root) *DirSource { return &DirSource{root: root} }

// Revision returns "": a directory is not an immutable snapshot.
func (s *DirSource) Revision() string { return "" }

// Walk implements [Source]. The .git directory is never reported.
func (s *DirSource) Walk(ctx context.Context, fn func(File) error) error {
	return fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return fn(File{Path: p, Dir: true})
		case d.Type().IsRegular():
			info, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking
			}
			if err != nil {
				return err
			}
			return fn(File{Path: p, Size: info.Size(), ModTime: info.ModTime().UnixNano()})
		default:
			return nil // symbolic links, devices, sockets
		}
	})
}

// ReadFile implements [Source].
func (s *DirSource) ReadFile(ctx context.Context, f File) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := s.root.ReadFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("goindex: reading %s: %w", f.Path, err)
	}
	return b, nil
}
