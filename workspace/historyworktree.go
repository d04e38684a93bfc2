package workspace

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// worktreeChanges compares base (nil: the empty tree) with the tracked
// files of the working tree, as git diff <base> does: the files the index
// lists, read from disk (trusting the index where size and time match, as
// git does). Untracked files are not part of it. Renames are paired as in
// a diff of commits, the similarity of a changed file computed from what
// is on disk.
func (s *Snapshot) worktreeChanges(ctx context.Context, base *Snapshot, f pathFilter, opts DiffOptions) ([]ChangedFile, error) {
	ws := s.grant.ws
	old := make(map[string]fileSide)
	if base != nil {
		if base.grant.ws != ws || base.rev.SHA == WorktreeRevision {
			return nil, errors.New("workspace: a working tree diff's base must be a commit of the same workspace")
		}
		ws.repo.mu.Lock()
		files, err := ws.repo.treeDiffLocked(plumbing.ZeroHash, base.src.(*commitSource).tree, "", f, nil)
		ws.repo.mu.Unlock()
		if err != nil {
			return nil, ws.internalError("reading a tree", err)
		}
		for _, c := range files {
			old[c.to.path] = c.to
		}
	}
	idx, _, err := ws.indexAndHead()
	if err != nil {
		return nil, err
	}
	cur := make(map[string]fileSide)
	for i, e := range idx.Entries {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if e.Stage != 0 || !f.visible(e.Name) {
			continue
		}
		if side, ok := ws.diskSide(e); ok {
			cur[e.Name] = side
		}
	}
	paths := make([]string, 0, len(old)+len(cur))
	for p := range old {
		paths = append(paths, p)
	}
	for p := range cur {
		if _, ok := old[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var raw []rawChange
	for _, p := range paths {
		a, b := old[p], cur[p]
		if a.hash == b.hash && a.mode == b.mode {
			continue
		}
		raw = append(raw, rawChange{from: a, to: b})
	}
	r := ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	if !opts.NoRenames {
		if raw, err = r.pairRenamesLocked(raw); err != nil {
			return nil, ws.internalError("pairing renames", err)
		}
	}
	return r.fileChangesLocked(ctx, raw, opts.Counts)
}

// visible reports whether the filter lets a path through, judging each
// of its directories on the way as a tree diff would.
func (f pathFilter) visible(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && !f.dir(p[:i]) {
			return false
		}
	}
	return f.file(p)
}

// diskSide describes the file an index entry names as it is on disk: the
// index's blob when size and time say it is unchanged, else a hash of
// what is there. ok is false when the file is gone (or is something a
// file cannot be).
func (w *Workspace) diskSide(e *index.Entry) (fileSide, bool) {
	side := fileSide{path: e.Name, mode: e.Mode, hash: e.Hash, disk: w.rootFS}
	if e.SkipWorktree || e.Mode == filemode.Submodule || !w.worktreeDiffers(e) {
		return side, true
	}
	fi, err := w.rootFS.Lstat(e.Name)
	if err != nil {
		return fileSide{}, false
	}
	data, err := readDisk(w.rootFS, e.Name, fi.Mode()&os.ModeSymlink != 0)
	switch {
	case err != nil:
		return fileSide{}, false
	case fi.Mode()&os.ModeSymlink != 0:
		side.mode = filemode.Symlink
	case !fi.Mode().IsRegular():
		return fileSide{}, false
	case fi.Mode()&0o111 != 0:
		side.mode = filemode.Executable
	default:
		side.mode = filemode.Regular
	}
	side.hash = plumbing.ComputeHash(plumbing.BlobObject, data)
	return side, true
}

// readDisk reads a working tree file (a symlink's target text), at most
// maxDiffBlob bytes plus one, so that a caller can tell it was cut.
func readDisk(root *os.Root, p string, link bool) ([]byte, error) {
	if link {
		target, err := root.Readlink(p)
		return []byte(target), err
	}
	fd, err := root.OpenFile(p, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	return io.ReadAll(io.LimitReader(fd, maxDiffBlob+1))
}
