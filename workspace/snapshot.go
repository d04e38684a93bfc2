package workspace

import (
	"context"
	"path"
	"strings"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// EntryType says what a path names.
type EntryType string

// Entry types.
const (
	TypeFile      EntryType = "file"
	TypeDir       EntryType = "dir"
	TypeSymlink   EntryType = "symlink"   // never followed; see Entry.Target
	TypeSubmodule EntryType = "submodule" // a gitlink; see Entry.SHA
)

// Git modes, as they appear in trees. Worktree entries are given the same
// modes.
const (
	ModeFile       uint32 = 0o100644
	ModeExecutable uint32 = 0o100755
	ModeSymlink    uint32 = 0o120000
	ModeDir        uint32 = 0o040000
	ModeSubmodule  uint32 = 0o160000
)

// MaxLinkTarget bounds the symlink target text reported.
const MaxLinkTarget = 4096

// Entry describes one path of a snapshot.
type Entry struct {
	Path string    // relative to the root, slash-separated; "" is the root
	Type EntryType //
	Mode uint32    // git mode (ModeFile, ModeExecutable, ...)
	// Size is the size in bytes of a file or of a symlink's target text; -1
	// when not known (a listing that did not ask for sizes), 0 for
	// directories and submodules.
	Size int64
	// SHA is the object id: the blob of a file or symlink, the tree of a
	// directory, the commit of a submodule. Worktree entries have one only
	// after a complete read of a file.
	SHA string
	// ModTime is the modification time of a working-tree file (Unix
	// nanoseconds), so that a reader can tell an unchanged file by its size
	// and time, as git's index does, without reading it again. It is zero in
	// a commit, where SHA says as much.
	ModTime int64
	// Target is a symlink's target text (at most MaxLinkTarget bytes). In
	// the working tree an absolute target names a host path and is withheld:
	// Target is then "" (a real symlink never has an empty target).
	Target string
}

// Cursor returns the position just after e in a walk, for
// [WalkOptions.After]. Directories end in "/": they sort after their
// siblings that share a prefix, and before their own contents.
func (e Entry) Cursor() string {
	if e.Type == TypeDir {
		return e.Path + "/"
	}
	return e.Path
}

// LinkPath returns the in-tree path a symlink entry points to, when it
// stays inside the tree and names neither .git nor anything a [CleanPath]
// would refuse. It does not follow chains of links.
func (e Entry) LinkPath() (string, bool) {
	if e.Type != TypeSymlink {
		return "", false
	}
	return resolveLink(e.Path, e.Target)
}

// resolveLink joins a symlink's target to the directory holding the link
// and reports the clean in-tree result, or false when the target is
// absolute, leaves the root, or is refused by [CleanPath].
func resolveLink(linkPath, target string) (string, bool) {
	if target == "" || strings.HasPrefix(target, "/") || strings.ContainsAny(target, "\\\x00") {
		return "", false
	}
	joined := path.Join(path.Dir(linkPath), target)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return "", false
	}
	clean, err := CleanPath(joined)
	if err != nil || clean == "" {
		return "", false
	}
	return clean, true
}

// Snapshot is one revision of a workspace, seen by one caller for one
// action: a commit's tree, or the working tree. Every method normalizes
// its path and authorizes it again (secret patterns and the caller's
// policies) before any I/O. A Snapshot is cheap and safe for concurrent use.
type Snapshot struct {
	grant *grant
	rev   Revision
	src   source
	opts  Options
}

// source is where a snapshot's bytes come from.
type source interface {
	// stat describes the clean path p.
	stat(p string) (Entry, error)
	// read returns up to limit bytes of a file from offset, and its size.
	// With shared, the bytes may be shared with other readers.
	read(e Entry, offset, limit int64, shared bool) ([]byte, int64, error)
	// list returns the children of directory dir, in walk order (git order).
	// Names that cannot be shown are dropped and counted in invalid.
	list(ctx context.Context, dir Entry, sizes bool) (children []Entry, invalid int, err error)
}

// Snapshot resolves a revision in a workspace for a caller. revision "" is
// HEAD; "worktree" is the working tree, where the workspace allows it. The
// caller must be granted acc.Action, and the revision must match the refs
// its policies allow.
func (r *Registry) Snapshot(ctx context.Context, acc Access, workspaceID, revision string) (*Snapshot, error) {
	g, err := r.grant(acc, workspaceID)
	if err != nil {
		return nil, err
	}
	spec, err := parseRevision(revision)
	if err != nil {
		return nil, err
	}
	ws := g.ws
	if spec.base == WorktreeRevision {
		return r.worktreeSnapshot(g, spec)
	}
	rev, h, err := ws.resolve(spec)
	if err != nil {
		return nil, err
	}
	if err := g.checkRef(rev.Ref, spec.input); err != nil {
		return nil, err
	}
	src, err := newCommitSource(ws, h)
	if err != nil {
		return nil, err
	}
	return &Snapshot{grant: g, rev: rev, src: src, opts: r.opts}, nil
}

func (r *Registry) worktreeSnapshot(g *grant, spec revSpec) (*Snapshot, error) {
	ws := g.ws
	switch {
	case ws.bare:
		return nil, errclass.Errorf(errclass.NotFound, "workspace %q is a bare repository: it has no working tree", ws.id)
	case !ws.worktree:
		return nil, errclass.Errorf(errclass.PermissionDenied,
			"workspace %q does not allow reading the working tree", ws.id).
			WithHint("read a committed revision such as HEAD")
	}
	rev := Revision{Input: spec.input, SHA: WorktreeRevision, Ref: WorktreeRevision}
	if err := g.checkRef(rev.Ref, spec.input); err != nil {
		return nil, err
	}
	return &Snapshot{grant: g, rev: rev, src: &worktreeSource{ws: ws}, opts: r.opts}, nil
}

// Revision returns the resolved revision; its SHA is what results echo.
func (s *Snapshot) Revision() Revision { return s.rev }

// Workspace returns the snapshot's workspace.
func (s *Snapshot) Workspace() *Workspace { return s.grant.ws }

// Access returns who the snapshot reads for.
func (s *Snapshot) Access() Access { return s.grant.access }

// Authorize checks a path as a read of this snapshot would, without
// reading it; asDir relaxes the policy's allow list to directories that
// may contain allowed paths. It returns the clean path.
func (s *Snapshot) Authorize(p string, asDir bool) (string, error) {
	clean, err := CleanPath(p)
	if err != nil {
		return "", err
	}
	return clean, s.grant.checkPath(clean, asDir)
}

// Stat describes a path. A symlink is described, not followed; its
// Target is filled in.
func (s *Snapshot) Stat(ctx context.Context, p string) (Entry, error) {
	clean, err := s.Authorize(p, true)
	if err != nil {
		return Entry{}, err
	}
	e, err := s.src.stat(clean)
	if err != nil {
		return Entry{}, err
	}
	if e.Type != TypeDir && namesDir(p) {
		// Cleaning dropped the slash; the file system and git would refuse
		// "a.go/" (ENOTDIR), and so do we rather than answer for a.go.
		return Entry{}, errclass.Errorf(errclass.InvalidInput,
			"path %s ends in '/', which names a directory, but %s is not one", quoteInput(p), quoteInput(clean))
	}
	if e.Type != TypeDir {
		if err := s.grant.checkPath(clean, false); err != nil {
			return Entry{}, err
		}
	}
	return e, nil
}

// namesDir reports whether a caller's path can only name a directory: it
// ends in a slash, or in a "." component after one.
func namesDir(p string) bool {
	return strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.")
}

// ReadOptions bound a read.
type ReadOptions struct {
	// Offset is the first byte to return.
	Offset int64
	// Limit is the byte budget: at most this many bytes are returned (and
	// held in memory). 0 means the registry's ReadBudget; values above its
	// MaxReadBytes are lowered to it (File.Truncated then says so).
	Limit int64
	// Shared lets File.Data be the workspace's cached copy of the file
	// rather than the caller's own: a caller that only reads the content
	// (scans, pages, hashes) saves copying it, which for a page of a large
	// file is most of the cost. Data must then not be modified.
	Shared bool
}

// File is the result of a read.
type File struct {
	Entry
	Offset    int64  // first byte of Data in the file
	Data      []byte // nil for symlinks
	Truncated bool   // more bytes follow Data; continue at Offset+len(Data)
}

// ReadFile reads a file within a byte budget. Directories and submodules
// are invalid_input. A symlink is answered with its entry and no data: use
// [Entry.LinkPath] to learn which in-tree path it points to, and read that
// path if the caller wants its content.
func (s *Snapshot) ReadFile(ctx context.Context, p string, opts ReadOptions) (File, error) {
	if opts.Offset < 0 || opts.Limit < 0 {
		return File{}, errclass.Errorf(errclass.InvalidInput, "offset and byte budget must not be negative")
	}
	limit := opts.Limit
	if limit == 0 {
		limit = s.opts.ReadBudget
	}
	limit = min(limit, s.opts.MaxReadBytes)
	e, err := s.Stat(ctx, p)
	if err != nil {
		return File{}, err
	}
	switch e.Type {
	case TypeDir:
		return File{}, errclass.Errorf(errclass.InvalidInput, "path %s is a directory; list it instead", quoteInput(e.Path))
	case TypeSubmodule:
		return File{}, errclass.Errorf(errclass.InvalidInput,
			"path %s is a submodule (commit %s); its files are not part of this repository", quoteInput(e.Path), e.SHA)
	case TypeSymlink:
		return File{Entry: e}, nil
	}
	if err := ctx.Err(); err != nil {
		return File{}, err
	}
	data, size, err := s.src.read(e, opts.Offset, limit, opts.Shared)
	if err != nil {
		return File{}, err
	}
	e.Size = size
	f := File{Entry: e, Offset: min(opts.Offset, size), Data: data}
	f.Truncated = f.Offset+int64(len(data)) < size
	if s.rev.SHA == WorktreeRevision && f.Offset == 0 && !f.Truncated {
		f.SHA = blobSHA(data)
	}
	return f, nil
}
