package workspace

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// worktreeSource reads the working tree through the workspace's os.Root.
// os.Root keeps every access beneath the root; on top of it, every
// directory on the way to a path is opened one component at a time and
// checked to be the directory that was inspected (not a symlink swapped in
// meanwhile), so a symlink inside the tree is never followed either, not
// even to another place inside it such as .git.
type worktreeSource struct {
	ws *Workspace
}

// openDir opens directory dir (a clean path) without following symlinks.
// The caller closes the returned root unless it is the workspace root.
func (w *worktreeSource) openDir(dir string) (*os.Root, error) {
	cur := w.ws.rootFS
	if dir == "" || dir == "." {
		return cur, nil
	}
	for _, name := range splitPath(dir) {
		next, err := openSubdir(cur, name, dir)
		if cur != w.ws.rootFS {
			cur.Close()
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

func openSubdir(parent *os.Root, name, full string) (*os.Root, error) {
	fi, err := parent.Lstat(name)
	if err != nil || !fi.IsDir() {
		return nil, notExistWorktree(full)
	}
	sub, err := parent.OpenRoot(name)
	if err != nil {
		return nil, notExistWorktree(full)
	}
	st, err := sub.Stat(".")
	if err != nil || !os.SameFile(fi, st) {
		sub.Close()
		return nil, errclass.Errorf(errclass.Transient, "path %s changed while it was being opened", quoteInput(full))
	}
	return sub, nil
}

func (w *worktreeSource) closeDir(r *os.Root) {
	if r != w.ws.rootFS {
		r.Close()
	}
}

func (w *worktreeSource) stat(p string) (Entry, error) {
	if p == "" {
		return Entry{Type: TypeDir, Mode: ModeDir}, nil
	}
	dir, err := w.openDir(path.Dir(p))
	if err != nil {
		return Entry{}, err
	}
	defer w.closeDir(dir)
	fi, err := dir.Lstat(path.Base(p))
	if err != nil {
		return Entry{}, notExistWorktree(p)
	}
	return worktreeEntry(dir, p, fi)
}

// worktreeEntry describes a file found in directory dir. Anything that is
// not a directory, regular file or symlink is refused.
func worktreeEntry(dir *os.Root, p string, fi fs.FileInfo) (Entry, error) {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return Entry{Path: p, Type: TypeDir, Mode: ModeDir}, nil
	case m&fs.ModeSymlink != 0:
		e := Entry{Path: p, Type: TypeSymlink, Mode: ModeSymlink, Size: -1}
		if target, err := dir.Readlink(path.Base(p)); err == nil {
			e.Size = int64(len(target))
			switch {
			case strings.HasPrefix(target, "/") || filepath.IsAbs(target):
				target = "" // a host path: withheld
			case len(target) > MaxLinkTarget:
				target, e.Size = target[:MaxLinkTarget], -1
			}
			e.Target = target
		}
		return e, nil
	case m.IsRegular():
		e := Entry{Path: p, Type: TypeFile, Mode: ModeFile, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
		if m&0o111 != 0 {
			e.Mode = ModeExecutable
		}
		return e, nil
	}
	return Entry{}, errclass.Errorf(errclass.InvalidInput,
		"path %s is not a regular file, directory or symlink (a FIFO, socket or device)", quoteInput(p))
}

func (w *worktreeSource) read(e Entry, offset, limit int64, _ bool) ([]byte, int64, error) {
	dir, err := w.openDir(path.Dir(e.Path))
	if err != nil {
		return nil, 0, err
	}
	defer w.closeDir(dir)
	name := path.Base(e.Path)
	before, err := dir.Lstat(name)
	if err != nil || !before.Mode().IsRegular() {
		return nil, 0, notExistWorktree(e.Path)
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, 0, notExistWorktree(e.Path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || !os.SameFile(before, st) {
		return nil, 0, errclass.Errorf(errclass.Transient, "path %s changed while it was being read", quoteInput(e.Path))
	}
	size := st.Size()
	if offset >= size {
		return nil, size, nil
	}
	buf := make([]byte, min(limit, size-offset))
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, w.ws.internalError("reading a working tree file", err)
	}
	return buf[:n], size, nil
}

func (w *worktreeSource) list(ctx context.Context, d Entry, sizes bool) ([]Entry, int, error) {
	dir, err := w.openDir(d.Path)
	if err != nil {
		return nil, 0, err
	}
	defer w.closeDir(dir)
	f, err := dir.Open(".")
	if err != nil {
		return nil, 0, notExistWorktree(d.Path)
	}
	des, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, 0, w.ws.internalError("listing a working tree directory", err)
	}
	prefix := d.Path
	if prefix != "" {
		prefix += "/"
	}
	out := make([]Entry, 0, len(des))
	invalid := 0
	for _, de := range des {
		name := de.Name()
		if IsGitDirName(name) {
			continue // repository metadata, not content
		}
		if !validEntryName(name) {
			invalid++
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // vanished meanwhile
		}
		e, err := worktreeEntry(dir, prefix+name, fi)
		if err != nil {
			invalid++ // FIFOs, sockets, devices
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return compareKeys(a.Path, a.Type == TypeDir, b.Path, b.Type == TypeDir)
	})
	return out, invalid, nil
}

func notExistWorktree(p string) error {
	return errclass.Errorf(errclass.NotFound, "path %s does not exist in the working tree", quoteInput(p))
}

// blobSHA returns the git object id of a blob with this content.
func blobSHA(data []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, data).String()
}
