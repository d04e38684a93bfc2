package workspace

import (
	"context"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// WorktreeDirty reports whether the working tree or the index differs from
// HEAD for tracked files (untracked files do not count, as with git
// describe --dirty). checked is false when the workspace does not allow
// reading its working tree, or has none; dirty is then meaningless.
//
// Like git, it trusts a file whose size and modification time match the
// index and hashes the others.
func (s *Snapshot) WorktreeDirty(ctx context.Context) (dirty, checked bool, err error) {
	ws := s.grant.ws
	if !ws.worktree {
		return false, false, nil
	}
	idx, head, err := ws.indexAndHead()
	if err != nil {
		return false, false, err
	}
	staged := 0
	for i, e := range idx.Entries {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return false, false, err
			}
		}
		// go-git's index.Merged is 1, but a merged entry has stage 0 on disk.
		if e.Stage != 0 || e.IntentToAdd {
			return true, true, nil
		}
		staged++
		if h, ok := head[e.Name]; !ok || h.hash != e.Hash || h.mode != e.Mode {
			return true, true, nil
		}
		if !e.SkipWorktree && e.Mode != filemode.Submodule && ws.worktreeDiffers(e) {
			return true, true, nil
		}
	}
	return staged != len(head), true, nil
}

type indexedBlob struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// indexAndHead reads the index and flattens HEAD's tree (from the tree
// cache, so it is cheap after the first call).
func (w *Workspace) indexAndHead() (*index.Index, map[string]indexedBlob, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	idx, err := r.storage.Index()
	if err != nil {
		return nil, nil, w.internalError("reading the index", err)
	}
	head := make(map[string]indexedBlob, len(idx.Entries))
	ref, err := storer.ResolveReference(r.storage, plumbing.HEAD)
	if err != nil {
		return idx, head, nil // no commits yet: everything in the index is new
	}
	ci, err := r.commitLocked(ref.Hash())
	if err != nil {
		return nil, nil, w.internalError("reading HEAD", err)
	}
	if err := r.flattenLocked(ci.tree, "", head); err != nil {
		return nil, nil, w.internalError("reading HEAD's tree", err)
	}
	return idx, head, nil
}

func (r *repo) flattenLocked(tree plumbing.Hash, prefix string, out map[string]indexedBlob) error {
	entries, err := r.treeLocked(tree)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.mode == filemode.Dir {
			if err := r.flattenLocked(e.hash, prefix+e.name+"/", out); err != nil {
				return err
			}
			continue
		}
		out[prefix+e.name] = indexedBlob{hash: e.hash, mode: e.mode}
	}
	return nil
}

// worktreeDiffers compares one index entry with the file on disk.
func (w *Workspace) worktreeDiffers(e *index.Entry) bool {
	fi, err := w.rootFS.Lstat(e.Name)
	if err != nil {
		return true
	}
	switch {
	case e.Mode == filemode.Symlink:
		if fi.Mode()&os.ModeSymlink == 0 {
			return true
		}
		target, err := w.rootFS.Readlink(e.Name)
		return err != nil || plumbing.ComputeHash(plumbing.BlobObject, []byte(target)) != e.Hash
	case !fi.Mode().IsRegular():
		return true
	case (fi.Mode()&0o111 != 0) != (e.Mode == filemode.Executable):
		return true
	case fi.Size() != int64(e.Size):
		return true
	case fi.ModTime().Equal(e.ModifiedAt):
		return false
	}
	f, err := w.rootFS.Open(e.Name)
	if err != nil {
		return true
	}
	defer f.Close()
	hasher := plumbing.NewHasher(plumbing.BlobObject, fi.Size())
	if _, err := io.Copy(hasher, io.LimitReader(f, fi.Size())); err != nil {
		return true
	}
	return hasher.Sum() != e.Hash
}
