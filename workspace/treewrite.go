package workspace

import (
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// Change is one file a proposed tree writes or removes.
type Change struct {
	Path   string // clean path of a regular file
	Delete bool
	Mode   uint32 // ModeFile or ModeExecutable, for writes
	SHA    string // the blob to write (see Workspace.WriteBlob)
}

// WriteTree stores the tree of the snapshot's commit with changes made and
// returns its SHA. Each path is authorized again for the snapshot's caller
// and action. Only regular files are written: a change that would replace or
// pass through a symlink, a submodule or a directory is invalid_input, and
// so is a new name that differs from an existing sibling only in case (it
// would overwrite that sibling on a case-insensitive filesystem).
// Directories left empty by deletions disappear, as in git.
func (s *Snapshot) WriteTree(changes []Change) (string, error) {
	cs, ok := s.src.(*commitSource)
	if !ok {
		return "", errclass.Errorf(errclass.InvalidInput, "a tree can only be built on a commit, not the working tree")
	}
	for _, c := range changes {
		clean, err := s.Authorize(c.Path, false)
		if err != nil {
			return "", err
		}
		if clean != c.Path || clean == "" {
			return "", errclass.Errorf(errclass.InvalidInput, "path %s is not clean", quoteInput(c.Path))
		}
		if !c.Delete && c.Mode != ModeFile && c.Mode != ModeExecutable {
			return "", errclass.Errorf(errclass.InvalidInput, "path %s: mode %o is not a regular file mode", quoteInput(c.Path), c.Mode)
		}
	}
	changes = slices.Clone(changes)
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	ws := s.grant.ws
	r := ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	h, empty, err := r.rewriteTreeLocked(cs.tree, "", changes)
	if err == nil && empty {
		h, err = r.writeObjectLocked(plumbing.TreeObject, nil)
	}
	if err != nil {
		if _, ok := err.(*errclass.Error); ok {
			return "", err
		}
		return "", ws.internalError("writing a tree", err)
	}
	return h.String(), nil
}

// rewriteTreeLocked applies changes (paths relative to dir) to tree h
// (ZeroHash: an empty tree) and stores the result. It reports whether the
// result is empty.
func (r *repo) rewriteTreeLocked(h plumbing.Hash, dir string, changes []Change) (plumbing.Hash, bool, error) {
	var entries []treeEntry
	if !h.IsZero() {
		old, err := r.treeLocked(h)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		entries = slices.Clone(old)
	}
	sub := map[string][]Change{}
	var subNames []string
	for _, c := range changes {
		name, rest, nested := strings.Cut(c.Path, "/")
		full := joinPath(dir, name)
		i := slices.IndexFunc(entries, func(e treeEntry) bool { return e.name == name })
		if nested {
			if i >= 0 && entries[i].mode != filemode.Dir {
				return plumbing.ZeroHash, false, errclass.Errorf(errclass.InvalidInput,
					"path %s: %s is a %s, not a directory", quoteInput(joinPath(dir, c.Path)), quoteInput(full), modeName(entries[i].mode))
			}
			if _, seen := sub[name]; !seen {
				subNames = append(subNames, name)
			}
			c.Path = rest
			sub[name] = append(sub[name], c)
			continue
		}
		var err error
		if entries, err = changeEntry(entries, i, full, name, c); err != nil {
			return plumbing.ZeroHash, false, err
		}
	}
	for _, name := range subNames {
		i := slices.IndexFunc(entries, func(e treeEntry) bool { return e.name == name })
		old := plumbing.ZeroHash
		if i >= 0 {
			old = entries[i].hash
		} else if err := checkCaseCollision(entries, joinPath(dir, name), name); err != nil {
			return plumbing.ZeroHash, false, err
		}
		nh, empty, err := r.rewriteTreeLocked(old, joinPath(dir, name), sub[name])
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		switch {
		case empty && i >= 0:
			entries = slices.Delete(entries, i, i+1)
		case !empty && i >= 0:
			entries[i].hash = nh
		case !empty:
			entries = append(entries, treeEntry{name: name, mode: filemode.Dir, hash: nh})
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, true, nil
	}
	sortEntries(entries)
	nh, err := r.writeObjectLocked(plumbing.TreeObject, encodeTree(entries))
	return nh, false, err
}

// changeEntry applies one change to a file named directly in a tree.
func changeEntry(entries []treeEntry, i int, full, name string, c Change) ([]treeEntry, error) {
	if !validEntryName(name) {
		return nil, errclass.Errorf(errclass.InvalidInput, "path %s has a name that cannot be written", quoteInput(full))
	}
	if i >= 0 && entries[i].mode != filemode.Regular && entries[i].mode != filemode.Executable &&
		entries[i].mode != filemode.Deprecated {
		return nil, errclass.Errorf(errclass.InvalidInput, "path %s is a %s; only regular files can be changed",
			quoteInput(full), modeName(entries[i].mode))
	}
	switch {
	case c.Delete && i < 0:
		return nil, errclass.Errorf(errclass.InvalidInput, "path %s does not exist at the base, so it cannot be deleted", quoteInput(full))
	case c.Delete:
		return slices.Delete(entries, i, i+1), nil
	case i >= 0:
		entries[i].mode, entries[i].hash = filemode.FileMode(c.Mode), plumbing.NewHash(c.SHA)
		return entries, nil
	}
	if err := checkCaseCollision(entries, full, name); err != nil {
		return nil, err
	}
	return append(entries, treeEntry{name: name, mode: filemode.FileMode(c.Mode), hash: plumbing.NewHash(c.SHA)}), nil
}

func checkCaseCollision(entries []treeEntry, full, name string) error {
	for _, e := range entries {
		if e.name != name && strings.EqualFold(e.name, name) {
			return errclass.Errorf(errclass.InvalidInput,
				"path %s differs from the existing %s only in case", quoteInput(full), quoteInput(e.name))
		}
	}
	return nil
}

func modeName(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "directory"
	case filemode.Symlink:
		return "symlink"
	case filemode.Submodule:
		return "submodule"
	}
	return "file"
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// FileChange is one path that differs between two commits. An empty SHA
// means the path does not exist on that side.
type FileChange struct {
	Path             string
	OldMode, NewMode uint32
	OldSHA, NewSHA   string
}

// DiffCommits lists the paths (files, symlinks, submodules) that differ
// between two commits' trees, sorted by path. Subtrees with equal hashes
// are not read. No grant applies: it serves the server's own records
// (a proposal against its base), not a caller's read.
func (w *Workspace) DiffCommits(oldCommit, newCommit string) ([]FileChange, error) {
	r := w.repo
	var trees [2]plumbing.Hash
	r.mu.Lock()
	for i, c := range []string{oldCommit, newCommit} {
		ci, err := r.commitLocked(plumbing.NewHash(c))
		if err != nil {
			r.mu.Unlock()
			return nil, w.objectError(c, err)
		}
		trees[i] = ci.tree
	}
	r.mu.Unlock()
	return w.fileChanges(trees[0], trees[1], pathFilter{})
}

// fileChanges is the tree diff from a to b, as FileChanges sorted by
// path.
func (w *Workspace) fileChanges(a, b plumbing.Hash, f pathFilter) ([]FileChange, error) {
	r := w.repo
	r.mu.Lock()
	raw, err := r.treeDiffLocked(a, b, "", f, nil)
	r.mu.Unlock()
	if err != nil {
		return nil, w.internalError("comparing trees", err)
	}
	out := make([]FileChange, len(raw))
	for i, c := range raw {
		out[i].Path = c.path()
		if c.from.path != "" {
			out[i].OldMode, out[i].OldSHA = uint32(c.from.mode), c.from.hash.String()
		}
		if c.to.path != "" {
			out[i].NewMode, out[i].NewSHA = uint32(c.to.mode), c.to.hash.String()
		}
	}
	slices.SortFunc(out, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
