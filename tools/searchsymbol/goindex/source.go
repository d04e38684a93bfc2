package goindex

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strconv"
)

// A Source is a snapshot of a file tree that the indexer reads: a commit's
// tree or a working tree (see [SnapshotSource]). The index
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
