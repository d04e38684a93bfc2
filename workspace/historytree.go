package workspace

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// fileSide is one side of a changed file: its path, mode and object.
type fileSide struct {
	path string // "" when the file does not exist on this side
	mode filemode.FileMode
	hash plumbing.Hash
	// disk is the working tree the content is read from, or nil for a
	// blob of the object store.
	disk *os.Root
}

// rawChange is a changed file between two trees, before renames are paired.
type rawChange struct {
	from, to   fileSide
	similarity int // percent, for a rename
}

// path is where the change is listed: the new path, or the old one of a
// deletion.
func (c rawChange) path() string {
	if c.to.path != "" {
		return c.to.path
	}
	return c.from.path
}

// pathFilter decides which paths a tree diff looks at: those under a
// caller's path (a file or a directory, "" for all) that the name rules
// and the caller's grant (nil: the name rules only) let it see. It is
// where every tree diff applies the policy: hidden directories are never
// entered, so nothing under them is compared, counted or named.
type pathFilter struct {
	spec  string
	grant *grant
	// dropped, when set, counts what the name rules and the grant left
	// out (not what lies outside spec): a hidden directory counts once.
	dropped *DiffStats
}

// dir reports whether the diff enters directory p, whose parent passed.
func (f pathFilter) dir(p string) bool {
	if f.spec != "" && p != f.spec && !strings.HasPrefix(p, f.spec+"/") && !strings.HasPrefix(f.spec, p+"/") {
		return false
	}
	return f.admit(p, true)
}

// file reports whether the diff reports file p, whose parent passed.
func (f pathFilter) file(p string) bool {
	if f.spec != "" && p != f.spec && !strings.HasPrefix(p, f.spec+"/") {
		return false
	}
	return f.admit(p, false)
}

// admit applies the name rules and the grant to p, counting what they
// drop.
func (f pathFilter) admit(p string, isDir bool) bool {
	switch {
	case !validPath(p):
		if f.dropped != nil {
			f.dropped.Invalid++
		}
		return false
	case f.grant != nil && f.grant.hidesEntry(p, isDir):
		if f.dropped != nil {
			f.dropped.Omitted++
		}
		return false
	}
	return true
}

// validPath checks the last component of a path built from tree entries:
// names a listing would leave out are left out of diffs too.
func validPath(p string) bool {
	return validEntryName(p[strings.LastIndexByte(p, '/')+1:])
}

// treeDiffLocked appends the files that differ between trees a and b
// (plumbing.ZeroHash is the empty tree), in git's order, below prefix.
// Equal subtrees are skipped by hash, so a diff costs what changed, not
// the size of the tree. r.mu must be held.
func (r *repo) treeDiffLocked(a, b plumbing.Hash, prefix string, f pathFilter, out []rawChange) ([]rawChange, error) {
	if a == b {
		return out, nil
	}
	if name, ok := f.nextName(prefix); ok {
		return r.entryDiffLocked(a, b, name, prefix, f, out)
	}
	return r.allEntriesDiffLocked(a, b, prefix, f, out)
}

// nextName returns, for a diff at prefix (a directory holding the
// filter's path, or the root), the name of the one entry the filter can
// let through there: the path's next component.
func (f pathFilter) nextName(prefix string) (string, bool) {
	if f.spec == "" || len(f.spec) <= len(prefix) || !strings.HasPrefix(f.spec, prefix) {
		return "", false
	}
	name, _, _ := strings.Cut(f.spec[len(prefix):], "/")
	return name, true
}

// entryDiffLocked is treeDiffLocked where only the entry called name can
// pass the filter. It finds that entry in each raw tree instead of
// decoding every entry of both: that was most of what a path-limited log
// spent per commit. An entry that is a file on one side and a directory
// on the other is two entries in git's order, left to the full
// comparison. r.mu must be held.
func (r *repo) entryDiffLocked(a, b plumbing.Hash, name, prefix string, f pathFilter, out []rawChange) ([]rawChange, error) {
	ea, okA, err := r.treeEntryLocked(a, name)
	if err != nil {
		return out, err
	}
	eb, okB, err := r.treeEntryLocked(b, name)
	if err != nil {
		return out, err
	}
	switch {
	case okA && okB && (ea.mode == filemode.Dir) != (eb.mode == filemode.Dir):
		return r.allEntriesDiffLocked(a, b, prefix, f, out)
	case okA && okB:
		return r.bothLocked(ea, eb, prefix, f, out)
	case okA:
		return r.sideLocked(ea, prefix, f, out, true)
	case okB:
		return r.sideLocked(eb, prefix, f, out, false)
	}
	return out, nil
}

// treeEntryLocked finds the entry called name in tree h (none in the zero
// hash): among the decoded entries when the tree cache holds them, else
// by scanning the raw tree, which the pack reader keeps. r.mu must be
// held.
func (r *repo) treeEntryLocked(h plumbing.Hash, name string) (treeEntry, bool, error) {
	if h.IsZero() {
		return treeEntry{}, false, nil
	}
	if entries, ok := r.trees.get(h); ok {
		for _, e := range entries {
			if e.name == name {
				return e, true, nil
			}
		}
		return treeEntry{}, false, nil
	}
	data, err := r.objectLocked(plumbing.TreeObject, h, maxTreeBytes)
	if err != nil {
		return treeEntry{}, false, err
	}
	e, ok, err := findTreeEntry(data, name)
	if err != nil {
		return treeEntry{}, false, fmt.Errorf("tree %s: %w", h, err)
	}
	return e, ok, nil
}

// findTreeEntry scans a raw tree ("MODE NAME\0HASH" repeated) for the
// entry called name, without decoding the others.
func findTreeEntry(data []byte, name string) (treeEntry, bool, error) {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return treeEntry{}, false, fmt.Errorf("malformed entry mode")
		}
		nul := bytes.IndexByte(data[sp+1:], 0) + sp + 1
		if nul <= sp || len(data) < nul+1+len(plumbing.ZeroHash) {
			return treeEntry{}, false, fmt.Errorf("malformed entry name or hash")
		}
		if string(data[sp+1:nul]) == name {
			mode, err := parseOctalMode(string(data[:sp]))
			if err != nil {
				return treeEntry{}, false, err
			}
			e := treeEntry{name: name, mode: mode}
			copy(e.hash[:], data[nul+1:])
			return e, true, nil
		}
		data = data[nul+1+len(plumbing.ZeroHash):]
	}
	return treeEntry{}, false, nil
}

// allEntriesDiffLocked is treeDiffLocked comparing every entry of both
// trees, merged in git's order. r.mu must be held.
func (r *repo) allEntriesDiffLocked(a, b plumbing.Hash, prefix string, f pathFilter, out []rawChange) ([]rawChange, error) {
	ea, err := r.treeLocked(a)
	if err != nil {
		return out, err
	}
	eb, err := r.treeLocked(b)
	if err != nil {
		return out, err
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		var c int
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = compareEntries(ea[i], eb[j])
		}
		switch {
		case c < 0:
			out, err = r.sideLocked(ea[i], prefix, f, out, true)
			i++
		case c > 0:
			out, err = r.sideLocked(eb[j], prefix, f, out, false)
			j++
		default:
			out, err = r.bothLocked(ea[i], eb[j], prefix, f, out)
			i, j = i+1, j+1
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// sideLocked records an entry present on one side only: deleted (old) or
// added.
func (r *repo) sideLocked(e treeEntry, prefix string, f pathFilter, out []rawChange, old bool) ([]rawChange, error) {
	p := prefix + e.name
	if e.mode == filemode.Dir {
		if !f.dir(p) {
			return out, nil
		}
		if old {
			return r.treeDiffLocked(e.hash, plumbing.ZeroHash, p+"/", f, out)
		}
		return r.treeDiffLocked(plumbing.ZeroHash, e.hash, p+"/", f, out)
	}
	if !f.file(p) {
		return out, nil
	}
	s := fileSide{path: p, mode: e.mode, hash: e.hash}
	if old {
		return append(out, rawChange{from: s}), nil
	}
	return append(out, rawChange{to: s}), nil
}

// bothLocked compares an entry present on both sides under one name (both
// directories, or both not).
func (r *repo) bothLocked(ea, eb treeEntry, prefix string, f pathFilter, out []rawChange) ([]rawChange, error) {
	if ea.hash == eb.hash && ea.mode == eb.mode {
		return out, nil
	}
	p := prefix + ea.name
	if ea.mode == filemode.Dir {
		if !f.dir(p) {
			return out, nil
		}
		return r.treeDiffLocked(ea.hash, eb.hash, p+"/", f, out)
	}
	if !f.file(p) {
		return out, nil
	}
	return append(out, rawChange{
		from: fileSide{path: p, mode: ea.mode, hash: ea.hash},
		to:   fileSide{path: p, mode: eb.mode, hash: eb.hash},
	}), nil
}

// treeHasLocked reports whether anything the filter lets through exists
// in tree h: how a root commit is judged by a path-limited log.
func (r *repo) treeHasLocked(h plumbing.Hash, f pathFilter) (bool, error) {
	changes, err := r.treeDiffLocked(plumbing.ZeroHash, h, "", f, nil)
	return len(changes) > 0, err
}
