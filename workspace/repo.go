package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// repo is the object store of one workspace. go-git's storage keeps one
// shared descriptor per pack file (KeepDescriptors), whose reader is not safe
// for concurrent use, so every access goes through mu. Decoded trees and
// commit-to-tree links are cached here; they are immutable by hash.
type repo struct {
	mu      sync.Mutex
	storage *filesystem.Storage
	trees   *treeCache
	commits map[plumbing.Hash]commitInfo    // bounded by maxCachedCommits
	sizes   map[plumbing.Hash]int64         // blob sizes; bounded by maxCachedSizes
	peeled  map[plumbing.Hash]plumbing.Hash // commit or tag -> commit; bounded by maxCachedCommits
	refs    *refCache                       // nil: every ref is resolved through go-git
	blobs   *blobCache                      // shared by the registry's repositories; nil: none
	hist    *historyCache                   // made on first use; see history.go
	// indexedPacks are the pack names go-git was last made to list again,
	// and packDirTime the pack directory's modification time then
	// (packsync.go); nil and zero before that.
	indexedPacks []plumbing.Hash
	packDirTime  time.Time
}

type commitInfo struct {
	tree    plumbing.Hash
	parents []plumbing.Hash
}

const (
	maxCachedCommits = 4096
	maxCachedSizes   = 1 << 18
	maxTreeBytes     = 64 << 20 // a larger tree object is refused
)

// gitLayout says where a workspace root keeps its repository.
type gitLayout struct {
	gitDir    string // the .git directory, or the root of a bare repository
	commonDir string // for linked worktrees: the main repository's .git
	bare      bool
}

// findGitDir inspects a canonical root: a working tree with a .git
// directory, a linked worktree or submodule with a .git file, or a bare
// repository.
func findGitDir(root string) (gitLayout, error) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err == nil && fi.IsDir():
		return gitLayout{gitDir: dotgit}, nil
	case err == nil && fi.Mode().IsRegular():
		return linkedGitDir(root, dotgit)
	case err == nil:
		return gitLayout{}, fmt.Errorf("%s is neither a directory nor a file", dotgit)
	case !errors.Is(err, os.ErrNotExist):
		return gitLayout{}, err
	}
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(root, name)); err != nil {
			return gitLayout{}, fmt.Errorf("%s is not a git repository (no .git, and not bare)", root)
		}
	}
	return gitLayout{gitDir: root, bare: true}, nil
}

// linkedGitDir follows a ".git" file ("gitdir: PATH") and its commondir.
// The operator chose this root, so the pointer is trusted.
func linkedGitDir(root, file string) (gitLayout, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return gitLayout{}, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return gitLayout{}, fmt.Errorf("%s: no gitdir line", file)
	}
	gitDir := strings.TrimSpace(target)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(root, gitDir)
	}
	layout := gitLayout{gitDir: filepath.Clean(gitDir)}
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		dir := strings.TrimSpace(string(common))
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(gitDir, dir)
		}
		layout.commonDir = filepath.Clean(dir)
	}
	return layout, nil
}

// openRepo opens the object store of a layout.
//
// Alternates (objects/info/alternates) are never followed: the storage is
// given an empty in-memory filesystem to resolve them in, so an object that
// lives only in an alternate object store reads as missing. A workspace is
// exactly what its root holds. The .git directory itself is opened with
// go-billy's BoundOS, which refuses symlinks that leave it.
func openRepo(layout gitLayout, cacheBytes, largeObject int64) (*repo, error) {
	var fs billy.Filesystem = osfs.New(layout.gitDir, osfs.WithBoundOS())
	if layout.commonDir != "" {
		fs = commonDirFS{dotgit.NewRepositoryFilesystem(fs, osfs.New(layout.commonDir, osfs.WithBoundOS())), layout.commonDir}
	}
	storage := filesystem.NewStorageWithOptions(lockHidingFS{fs},
		cache.NewObjectLRU(cache.FileSize(cacheBytes)),
		filesystem.Options{
			KeepDescriptors:      true,
			LargeObjectThreshold: largeObject,
			AlternatesFS:         memfs.New(),
		})
	if _, err := storage.Reference(plumbing.HEAD); err != nil {
		storage.Close()
		return nil, fmt.Errorf("reading HEAD: %w", err)
	}
	return &repo{
		storage: storage,
		trees:   newTreeCache(1 << 18),
		commits: make(map[plumbing.Hash]commitInfo),
		sizes:   make(map[plumbing.Hash]int64),
		peeled:  make(map[plumbing.Hash]plumbing.Hash),
		refs:    newRefCache(layout),
	}, nil
}

func (r *repo) close() error {
	r.blobs.forget(r)
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.hist.close(), r.storage.Close())
}

// commitLocked returns the tree and parents of a commit. r.mu must be held.
func (r *repo) commitLocked(h plumbing.Hash) (commitInfo, error) {
	if ci, ok := r.commits[h]; ok {
		return ci, nil
	}
	obj, err := r.encodedObjectLocked(h)
	if err != nil {
		return commitInfo{}, err
	}
	c, err := object.DecodeCommit(r.storage, obj)
	if err != nil {
		return commitInfo{}, err
	}
	ci := commitInfo{tree: c.TreeHash, parents: c.ParentHashes}
	if len(r.commits) >= maxCachedCommits {
		clear(r.commits)
	}
	r.commits[h] = ci
	return ci, nil
}

// treeLocked returns the decoded, sorted entries of a tree (none for the
// zero hash), read from the mapped packs where they hold it and kept in the
// repo's tree cache. A first listing reads every tree of a commit: through
// go-git's object storage that was half of its time. r.mu must be held.
func (r *repo) treeLocked(h plumbing.Hash) ([]treeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	if entries, ok := r.trees.get(h); ok {
		return entries, nil
	}
	data, err := r.objectLocked(plumbing.TreeObject, h, maxTreeBytes)
	if err != nil {
		return nil, err
	}
	entries, err := decodeTree(string(data))
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	r.trees.put(h, entries)
	return entries, nil
}

// treeEntry is one entry of a git tree object.
type treeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// decodeTree parses the raw tree format ("MODE NAME\0HASH" repeated) and
// returns the entries in git order (directories compare as "name/"), which
// is also the byte order of the paths a recursive walk yields. Trees written
// by other tools may be out of order; they are sorted here. Names are
// substrings of data, the tree's content, which the caller copies once
// from the object's bytes (the mapped packs' cache may share those).
func decodeTree(data string) ([]treeEntry, error) {
	return appendTree(make([]treeEntry, 0, len(data)/40+1), data)
}

// appendTree is decodeTree appending to entries, for a caller that reuses
// them from one tree to the next.
func appendTree(entries []treeEntry, data string) ([]treeEntry, error) {
	sorted := true
	for len(data) > 0 {
		sp := strings.IndexByte(data, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("malformed entry mode")
		}
		mode, err := parseOctalMode(data[:sp])
		if err != nil {
			return nil, err
		}
		data = data[sp+1:]
		nul := strings.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+len(plumbing.ZeroHash) {
			return nil, fmt.Errorf("malformed entry name or hash")
		}
		e := treeEntry{name: data[:nul], mode: mode}
		copy(e.hash[:], data[nul+1:])
		data = data[nul+1+len(e.hash):]
		if n := len(entries); n > 0 && compareEntries(entries[n-1], e) > 0 {
			sorted = false
		}
		entries = append(entries, e)
	}
	if !sorted {
		sortEntries(entries)
	}
	return entries, nil
}

func parseOctalMode(b string) (filemode.FileMode, error) {
	if len(b) == 0 || len(b) > 7 {
		return 0, fmt.Errorf("malformed entry mode %q", b)
	}
	var m uint32
	for _, c := range b {
		if c < '0' || c > '7' {
			return 0, fmt.Errorf("malformed entry mode %q", b)
		}
		m = m<<3 | uint32(c-'0')
	}
	return filemode.FileMode(m), nil
}

// compareEntries orders entries as git does: a directory's name compares as
// if it ended in "/".
func compareEntries(a, b treeEntry) int {
	return compareKeys(a.name, a.mode == filemode.Dir, b.name, b.mode == filemode.Dir)
}

func compareKeys(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	ca, cb := keyByte(a, n, aDir), keyByte(b, n, bDir)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

// keyByte returns the byte at position i of name+"/" (for directories), or
// 0 past the end.
func keyByte(name string, i int, dir bool) int {
	switch {
	case i < len(name):
		return int(name[i])
	case i == len(name) && dir:
		return '/'
	}
	return -1
}

// readBlob reads up to limit bytes of a blob, from offset. It returns the
// blob's full size. Never more than limit bytes of content are copied into
// the result. The repository's lock is held only to find the object: the
// content is inflated outside it, so that one caller reading a large file
// does not hold up every other caller of the workspace. A read of a whole
// blob, or of a part past its start, inflates it whole, once, into the
// cache if it fits there, and later reads of any part copy from the cache
// (or, with shared, return the cache's bytes). A read of a blob's first
// part, or of a blob too large to keep, streams from the start up to what
// the read needs.
func (r *repo) readBlob(h plumbing.Hash, offset, limit int64, shared bool) ([]byte, int64, error) {
	k := blobKey{r, h}
	if data, ok := r.blobs.get(k); ok {
		return window(data, offset, limit, shared), int64(len(data)), nil
	}
	if data, found, err := r.readPackedBlob(h); found {
		if err != nil {
			return nil, 0, err
		}
		r.blobs.put(k, data)
		return window(data, offset, limit, shared), int64(len(data)), nil
	}
	r.mu.Lock()
	obj, err := r.storageObjectLocked(plumbing.BlobObject, h)
	if err == nil && !readableUnlocked(obj) {
		defer r.mu.Unlock()
		return readObjectRange(obj, offset, limit)
	}
	r.mu.Unlock()
	if err != nil {
		return nil, 0, err
	}
	size := obj.Size()
	if !r.blobs.fits(size) || offset == 0 && limit < size {
		// The first part of a blob costs only itself to inflate: the
		// whole is inflated, and kept, when a read goes on past it.
		return readObjectRange(obj, offset, limit)
	}
	data, err := r.blobs.load(k, func() ([]byte, error) {
		data, _, err := readObjectRange(obj, 0, size)
		return data, err
	})
	if err != nil {
		return nil, 0, err
	}
	return window(data, offset, limit, shared), size, nil
}

// readableUnlocked reports whether an object's content can be read without
// the repository's lock. Objects from packs read through a descriptor of
// their own (or are in memory already); a large loose object's reader goes
// through the storage's shared directory state, so it is read under the
// lock.
func readableUnlocked(obj plumbing.EncodedObject) bool {
	_, loose := obj.(*dotgit.EncodedObject)
	return !loose
}

// readBlobLocked is readBlob for callers that hold r.mu already. It reads
// from the cache but does not fill it: these callers (exports, history)
// read many blobs once each, and would only evict the ones being paged.
func (r *repo) readBlobLocked(h plumbing.Hash, offset, limit int64) ([]byte, int64, error) {
	if data, ok := r.blobs.get(blobKey{r, h}); ok {
		return window(data, offset, limit, false), int64(len(data)), nil
	}
	obj, err := r.storageObjectLocked(plumbing.BlobObject, h)
	if err != nil {
		return nil, 0, err
	}
	return readObjectRange(obj, offset, limit)
}

// window returns up to limit bytes of data from offset: a copy, since
// callers own what a read returns and data is the cache's, unless shared.
func window(data []byte, offset, limit int64, shared bool) []byte {
	size := int64(len(data))
	if offset >= size {
		return nil
	}
	w := data[offset : offset+min(limit, size-offset) : offset+min(limit, size-offset)]
	if shared {
		return w
	}
	return slices.Clone(w)
}

// readObjectRange reads up to limit bytes of an object's content from
// offset, and returns its size.
func readObjectRange(obj plumbing.EncodedObject, offset, limit int64) ([]byte, int64, error) {
	size := obj.Size()
	if offset >= size {
		return nil, size, nil
	}
	n := min(limit, size-offset)
	rd, err := obj.Reader()
	if err != nil {
		return nil, 0, err
	}
	defer rd.Close()
	if offset > 0 {
		if _, err := io.CopyN(io.Discard, rd, offset); err != nil {
			return nil, 0, err
		}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(rd, buf); err != nil {
		return nil, 0, err
	}
	return buf, size, nil
}

// blobSize returns a blob's size without reading its content where the
// storage allows it.
func (r *repo) blobSize(h plumbing.Hash) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blobSizeLocked(h)
}

// storageObjectLocked reads object h through go-git. go-git lists the
// repository's packs once, at its first lookup: objects a repack or gc
// moved into a new pack since then (deleting the old one, and the loose
// objects) are not found. So the packs are listed again first when their
// directory changed, and when go-git does not find h and the packs on
// disk are not those it listed (a change the directory's time did not
// show), and h is looked up once more (packsync.go). r.mu must be held.
func (r *repo) storageObjectLocked(typ plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	r.syncPacksIfChangedLocked()
	obj, err := r.storage.EncodedObject(typ, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) && r.syncPacksLocked() {
		obj, err = r.storage.EncodedObject(typ, h)
	}
	return obj, err
}

func (r *repo) blobSizeLocked(h plumbing.Hash) (int64, error) {
	if size, ok := r.sizes[h]; ok {
		return size, nil
	}
	size, ok := r.packedSizeLocked(h)
	if !ok {
		var err error
		r.syncPacksIfChangedLocked()
		size, err = r.storage.EncodedObjectSize(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) && r.syncPacksLocked() {
			size, err = r.storage.EncodedObjectSize(h)
		}
		if err != nil {
			return 0, err
		}
	}
	if len(r.sizes) >= maxCachedSizes {
		clear(r.sizes)
	}
	r.sizes[h] = size
	return size, nil
}

// readSmallBlobLocked reads a whole blob of at most max bytes (symlink
// targets), and reports whether that was all of it. r.mu must be held.
func (r *repo) readSmallBlobLocked(h plumbing.Hash, max int64) (string, bool, error) {
	data, size, err := r.readBlobLocked(h, 0, max)
	if err != nil {
		return "", false, err
	}
	return string(data), size <= max, nil
}
