package goindex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// indexObjectCacheSize is the go-git object cache of a repository opened
// for indexing. A bulk read of every blob churns a large cache, which costs
// memory and buys little speed (see the project's PERF notes); a small one
// still holds trees and the bases of delta chains. (Caching no blobs at all
// was measured 1.2-1.3x slower on a delta-heavy pack: every delta then
// inflates its base again.)
const indexObjectCacheSize = 8 * cache.MiByte

// Repository is a git repository opened for indexing: its pack files are
// kept open between reads (go-git's KeepDescriptors) and its object cache is
// small. Close it to release the descriptors.
type Repository struct {
	*git.Repository
	storage *filesystem.Storage
}

// OpenRepository opens the repository whose work tree or git directory is
// dir.
func OpenRepository(dir string) (*Repository, error) {
	gitDir := filepath.Join(dir, ".git")
	if info, err := os.Stat(gitDir); err != nil || !info.IsDir() {
		gitDir = dir // a bare repository
	}
	st := filesystem.NewStorageWithOptions(osfs.New(gitDir),
		cache.NewObjectLRU(indexObjectCacheSize),
		filesystem.Options{KeepDescriptors: true})
	repo, err := git.Open(st, nil)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("goindex: opening repository: %w", err)
	}
	return &Repository{Repository: repo, storage: st}, nil
}

// Close releases the repository's open pack files.
func (r *Repository) Close() error { return r.storage.Close() }

// GitSource is a [Source] over the tree of one commit. Files carry their blob
// ids, so the indexer reads only blobs it has not parsed before.
//
// A GitSource serializes its own reads of the repository. If the repository
// was opened with kept descriptors, do not read it from other goroutines
// while an index is being built from it.
type GitSource struct {
	repo   *git.Repository
	commit plumbing.Hash
	tree   plumbing.Hash

	mu sync.Mutex // serializes object reads
}

// NewGitSource returns a source over the tree of commit, which must be a
// full commit id (resolving revisions is the caller's job).
func NewGitSource(repo *git.Repository, commit plumbing.Hash) (*GitSource, error) {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("goindex: commit %s: %w", commit, err)
	}
	return &GitSource{repo: repo, commit: commit, tree: c.TreeHash}, nil
}

// Revision returns the commit id.
func (s *GitSource) Revision() string { return s.commit.String() }

// Walk implements [Source]. It reads tree objects one at a time, so that a
// skipped directory (vendor/, testdata/) costs nothing.
func (s *GitSource) Walk(ctx context.Context, fn func(File) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.walkTree(ctx, s.tree, "", fn)
}

func (s *GitSource) walkTree(ctx context.Context, h plumbing.Hash, dir string, fn func(File) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tree, err := s.repo.TreeObject(h)
	if err != nil {
		return fmt.Errorf("goindex: tree %s: %w", dir, err)
	}
	// Copy the entries: the tree may be evicted and reused by the cache
	// while we recurse.
	entries := append([]object.TreeEntry(nil), tree.Entries...)
	for _, e := range entries {
		p := e.Name
		if dir != "" {
			p = dir + "/" + e.Name
		}
		switch e.Mode {
		case filemode.Dir:
			err := fn(File{Path: p, Dir: true})
			if errors.Is(err, fs.SkipDir) {
				continue
			}
			if err != nil {
				return err
			}
			if err := s.walkTree(ctx, e.Hash, p, fn); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			if err := fn(File{Path: p, ID: e.Hash.String()}); err != nil && !errors.Is(err, fs.SkipDir) {
				return err
			}
		}
	}
	return nil
}

// ReadFile implements [Source].
func (s *GitSource) ReadFile(ctx context.Context, f File) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !plumbing.IsHash(f.ID) {
		return nil, fmt.Errorf("goindex: %s: no blob id", f.Path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	blob, err := s.repo.BlobObject(plumbing.NewHash(f.ID))
	if err != nil {
		return nil, fmt.Errorf("goindex: blob of %s: %w", f.Path, err)
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("goindex: blob of %s: %w", f.Path, err)
	}
	defer r.Close()
	b := make([]byte, 0, blob.Size)
	b, err = readAll(r, b)
	if err != nil {
		return nil, fmt.Errorf("goindex: reading %s: %w", f.Path, err)
	}
	return b, nil
}

// readAll is io.ReadAll into a buffer of the right capacity.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
