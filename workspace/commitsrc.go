package workspace

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// commitSource reads a commit's tree from the object store.
type commitSource struct {
	ws   *Workspace
	tree plumbing.Hash
}

func newCommitSource(ws *Workspace, commit plumbing.Hash) (*commitSource, error) {
	ws.repo.mu.Lock()
	ci, err := ws.repo.commitLocked(commit)
	ws.repo.mu.Unlock()
	if err != nil {
		return nil, ws.internalError("reading a commit", err)
	}
	return &commitSource{ws: ws, tree: ci.tree}, nil
}

func (c *commitSource) stat(p string) (Entry, error) {
	if p == "" {
		return Entry{Path: "", Type: TypeDir, Mode: ModeDir, SHA: c.tree.String()}, nil
	}
	te, err := c.lookup(p)
	if err != nil {
		return Entry{}, err
	}
	e := entryFor(p, te)
	switch e.Type {
	case TypeFile:
		if e.Size, err = c.ws.repo.blobSize(te.hash); err != nil {
			return Entry{}, c.objectError(p, err)
		}
	case TypeSymlink:
		c.ws.repo.mu.Lock()
		err := c.fillTargetLocked(&e, te.hash)
		c.ws.repo.mu.Unlock()
		if err != nil {
			return Entry{}, err
		}
	}
	return e, nil
}

// lookup walks the trees from the root to p. Every component must be a
// directory in the tree; a symlink on the way is not followed.
func (c *commitSource) lookup(p string) (treeEntry, error) {
	r := c.ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	dir := c.tree
	rest := p
	for {
		name, tail, more := strings.Cut(rest, "/")
		entries, err := r.treeLocked(dir)
		if err != nil {
			return treeEntry{}, c.objectError(p, err)
		}
		te, ok := findEntry(entries, name)
		if !ok || !validEntryName(name) {
			return treeEntry{}, notExist(p)
		}
		if !more {
			return te, nil
		}
		if te.mode != filemode.Dir {
			return treeEntry{}, notExist(p)
		}
		dir, rest = te.hash, tail
	}
}

// findEntry finds a name in entries sorted in git order. A name may sort as
// a file or as a directory, so both positions are probed.
func findEntry(entries []treeEntry, name string) (treeEntry, bool) {
	for _, asDir := range []bool{false, true} {
		lo, hi := 0, len(entries)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			e := entries[m]
			if compareKeys(e.name, e.mode == filemode.Dir, name, asDir) < 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(entries) && entries[lo].name == name {
			return entries[lo], true
		}
	}
	return treeEntry{}, false
}

func entryFor(p string, te treeEntry) Entry {
	e := typedEntry(te)
	e.Path, e.SHA = p, te.hash.String()
	return e
}

// typedEntry fills in the type, mode and (unknown) size of a tree entry.
func typedEntry(te treeEntry) Entry {
	e := Entry{Mode: uint32(te.mode)}
	switch te.mode {
	case filemode.Dir:
		e.Type = TypeDir
	case filemode.Symlink:
		e.Type, e.Size = TypeSymlink, -1
	case filemode.Submodule:
		e.Type = TypeSubmodule
	default:
		e.Type, e.Size = TypeFile, -1
		if te.mode != filemode.Executable {
			e.Mode = ModeFile // normalizes the deprecated 100664 and odd modes
		}
	}
	return e
}

func (c *commitSource) fillTargetLocked(e *Entry, h plumbing.Hash) error {
	target, complete, err := c.ws.repo.readSmallBlobLocked(h, MaxLinkTarget)
	if err != nil {
		return c.objectError(e.Path, err)
	}
	e.Target, e.Size = target, int64(len(target))
	if !complete {
		e.Size = -1
	}
	return nil
}

func (c *commitSource) read(e Entry, offset, limit int64, shared bool) ([]byte, int64, error) {
	data, size, err := c.ws.repo.readBlob(plumbing.NewHash(e.SHA), offset, limit, shared)
	if err != nil {
		return nil, 0, c.objectError(e.Path, err)
	}
	return data, size, nil
}

// list returns a copy of the cached listing's entries: callers of the
// source interface own what they get.
func (c *commitSource) list(ctx context.Context, dir Entry, sizes bool) ([]Entry, int, error) {
	l, err := c.listing(dir, sizes, nil)
	if err != nil {
		return nil, 0, err
	}
	return slices.Clone(l.entries), l.invalid, nil
}

func (c *commitSource) objectError(p string, err error) error {
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return errclass.Errorf(errclass.NotFound, "an object under %s is missing from the repository", quoteInput(p)).Wrap(err)
	}
	return c.ws.internalError("reading the repository", err)
}

func notExist(p string) error {
	return errclass.Errorf(errclass.NotFound, "path %s does not exist at this revision", quoteInput(p))
}
