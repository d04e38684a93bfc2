package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// History reads of a snapshot: its commit's metadata, the files that
// differ from another snapshot (with renames, line counts and patches) and
// the log of commits behind it ([Snapshot.Log] in historylog.go).
//
// Every path that leaves this package passed the caller's grant: the tree
// diff never enters a hidden directory nor reports a hidden file, so a
// denied path is not named, counted or shown on either side of a change,
// and a rename from or to one reads as the addition or deletion of the
// visible side only.

// ChangeStatus says how a file changed.
type ChangeStatus string

// Change statuses, as git's name-status letters A, M, D, R and T.
const (
	StatusAdded       ChangeStatus = "added"
	StatusModified    ChangeStatus = "modified"
	StatusDeleted     ChangeStatus = "deleted"
	StatusRenamed     ChangeStatus = "renamed"
	StatusTypeChanged ChangeStatus = "type_changed"
)

// ChangedFile is one file that differs between two snapshots.
type ChangedFile struct {
	Status  ChangeStatus
	Path    string // the new path; the old one for a deletion
	OldPath string // a rename's source
	// OldMode and NewMode are git modes; 0 where the file is absent.
	OldMode, NewMode uint32
	// OldSHA and NewSHA are blob ids ("" where absent).
	OldSHA, NewSHA string
	Similarity     int  // percent, for a rename
	Binary         bool // either side is binary (a NUL in its first 8000 bytes)
	// Added and Removed count lines; -1 for binary files, submodules and
	// files too large to compare, or when counts were not asked for.
	Added, Removed int
}

// DiffOptions choose what a diff compares and computes.
type DiffOptions struct {
	// Path limits the diff to a file or directory ("" for all).
	Path string
	// NoRenames reports renames as a deletion and an addition.
	NoRenames bool
	// Counts asks for line counts (reads both sides of every file).
	Counts bool
}

// maxDiffBlob is the largest blob compared line by line; larger files are
// reported without counts or patch, as binary files are.
const maxDiffBlob = 16 << 20

// CommitInfo returns the metadata of the snapshot's commit.
func (s *Snapshot) CommitInfo(hideEmails bool) (CommitInfo, error) {
	if s.rev.SHA == WorktreeRevision {
		return CommitInfo{}, errclass.Errorf(errclass.InvalidInput, "the working tree is not a commit")
	}
	ws := s.grant.ws
	ws.repo.mu.Lock()
	defer ws.repo.mu.Unlock()
	c, err := ws.repo.commitObjectLocked(plumbing.NewHash(s.rev.SHA))
	if err != nil {
		return CommitInfo{}, ws.internalError("reading a commit", err)
	}
	return infoOf(c, hideEmails), nil
}

// Parent returns a snapshot of the n-th parent (1-based) of the snapshot's
// commit, or nil when it has fewer parents. It is read with the grant of s:
// a parent is as readable as the revision it is reached from, as rev^n is.
// In a shallow clone, the parents of a commit on the boundary were never
// fetched: the error is then not_found and wraps a *BoundaryError.
func (s *Snapshot) Parent(n int) (*Snapshot, error) {
	info, err := s.CommitInfo(false)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > len(info.Parents) {
		return nil, nil
	}
	if err := s.grant.ws.parentsFetched(plumbing.NewHash(s.rev.SHA), n); err != nil {
		return nil, err
	}
	return s.at(plumbing.NewHash(info.Parents[n-1]))
}

// at returns a snapshot of another commit with the grant and ref of s.
func (s *Snapshot) at(h plumbing.Hash) (*Snapshot, error) {
	src, err := newCommitSource(s.grant.ws, h)
	if err != nil {
		return nil, err
	}
	rev := Revision{Input: h.String(), SHA: h.String(), Ref: s.rev.Ref}
	return &Snapshot{grant: s.grant, rev: rev, src: src, opts: s.opts}, nil
}

// MergeBase returns a snapshot of the best common ancestor of s and other,
// as git merge-base chooses it (the first when there are several), or a
// not_found error when they share no history.
func (s *Snapshot) MergeBase(ctx context.Context, other *Snapshot) (*Snapshot, error) {
	if err := s.sameCommits(other); err != nil {
		return nil, err
	}
	h, err := s.grant.ws.mergeBase(plumbing.NewHash(s.rev.SHA), plumbing.NewHash(other.rev.SHA))
	if err != nil {
		return nil, err
	}
	if h.IsZero() {
		return nil, errclass.Errorf(errclass.NotFound, "revisions %s and %s have no common ancestor", s.rev.Input, other.rev.Input)
	}
	return s.at(h)
}

// mergeBase returns the first merge base of two commits, or the zero hash.
func (w *Workspace) mergeBase(a, b plumbing.Hash) (plumbing.Hash, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	ca, err := r.commitObjectLocked(a)
	if err != nil {
		return plumbing.ZeroHash, w.internalError("reading a commit", err)
	}
	cb, err := r.commitObjectLocked(b)
	if err != nil {
		return plumbing.ZeroHash, w.internalError("reading a commit", err)
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return plumbing.ZeroHash, w.internalError("finding a merge base", err)
	}
	if len(bases) == 0 {
		return plumbing.ZeroHash, nil
	}
	return bases[0].Hash, nil
}

// sameCommits checks that two snapshots are commits of one workspace, read
// by one caller.
func (s *Snapshot) sameCommits(other *Snapshot) error {
	switch {
	case other.grant.ws != s.grant.ws || other.grant.access != s.grant.access:
		return errors.New("workspace: snapshots of different workspaces or callers")
	case s.rev.SHA == WorktreeRevision || other.rev.SHA == WorktreeRevision:
		return errclass.Errorf(errclass.InvalidInput, "the working tree has no history; name a commit")
	}
	return nil
}

// DiffFrom lists the files that differ from base (nil: the empty tree) to
// s, in path order, renames paired unless asked not to. Paths the caller
// may not see are left out entirely.
func (s *Snapshot) DiffFrom(ctx context.Context, base *Snapshot, opts DiffOptions) ([]ChangedFile, error) {
	f, err := s.diffFilter(opts.Path)
	if err != nil {
		return nil, err
	}
	if s.rev.SHA == WorktreeRevision {
		return s.worktreeChanges(ctx, base, f, opts)
	}
	var baseTree plumbing.Hash
	if base != nil {
		if err := s.sameCommits(base); err != nil {
			return nil, err
		}
		baseTree = base.src.(*commitSource).tree
	}
	ws := s.grant.ws
	r := ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	// Trees are immutable: a diff is cached by the two trees and what
	// decides its content (the path, the caller, renames, counts).
	headTree := s.src.(*commitSource).tree
	key := strings.Join([]string{"diff", baseTree.String(), headTree.String(), f.spec,
		s.grant.access.Identity, string(s.grant.access.Action), fmt.Sprint(opts.NoRenames, opts.Counts)}, "\x00")
	hc := r.historyLocked()
	if files, ok := hc.changes[key]; ok {
		return files, nil
	}
	raw, err := r.treeDiffLocked(baseTree, headTree, "", f, nil)
	if err == nil && !opts.NoRenames {
		raw, err = r.pairRenamesLocked(raw)
	}
	if err != nil {
		return nil, ws.internalError("comparing trees", err)
	}
	files, err := r.fileChangesLocked(ctx, raw, opts.Counts)
	if err != nil {
		return nil, err
	}
	if len(hc.changes) >= maxCachedChanges {
		clear(hc.changes)
	}
	hc.changes[key] = files
	return files, nil
}

// diffFilter authorizes a diff's path and returns the filter for it.
func (s *Snapshot) diffFilter(p string) (pathFilter, error) {
	if p == "" {
		return pathFilter{grant: s.grant}, nil
	}
	clean, err := s.Authorize(p, true)
	if err != nil {
		return pathFilter{}, err
	}
	return pathFilter{spec: clean, grant: s.grant}, nil
}

// fileChangesLocked completes raw changes with statuses and, when asked,
// line counts. r.mu must be held.
func (r *repo) fileChangesLocked(ctx context.Context, raw []rawChange, counts bool) ([]ChangedFile, error) {
	out := make([]ChangedFile, 0, len(raw))
	for i, c := range raw {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		fc := changedFile(c)
		if counts {
			if err := r.countLocked(&fc, c); err != nil {
				return nil, err
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// fileChange describes a raw change, without line counts.
func changedFile(c rawChange) ChangedFile {
	fc := ChangedFile{Path: c.path(), Added: -1, Removed: -1, Similarity: c.similarity}
	if c.from.path != "" {
		fc.OldMode, fc.OldSHA = uint32(c.from.mode), c.from.hash.String()
	}
	if c.to.path != "" {
		fc.NewMode, fc.NewSHA = uint32(c.to.mode), c.to.hash.String()
	}
	switch {
	case c.from.path == "":
		fc.Status = StatusAdded
	case c.to.path == "":
		fc.Status = StatusDeleted
	case c.from.path != c.to.path:
		fc.Status, fc.OldPath = StatusRenamed, c.from.path
	case kind(c.from.mode) != kind(c.to.mode):
		fc.Status = StatusTypeChanged
	default:
		fc.Status = StatusModified
	}
	return fc
}

// kind groups modes as git's type-change test does: regular files (of any
// permission), symlinks and submodules.
func kind(m filemode.FileMode) int {
	switch {
	case isRegular(m):
		return 0
	case m == filemode.Symlink:
		return 1
	}
	return 2
}

// countLocked fills in the line counts of a change. r.mu must be held.
func (r *repo) countLocked(fc *ChangedFile, c rawChange) error {
	a, b, ok, err := r.contentsLocked(c)
	if err != nil || !ok {
		return err
	}
	if isBinary(a) || isBinary(b) {
		fc.Binary = true
		return nil
	}
	fc.Added, fc.Removed = diffLines(a, b).counts()
	return nil
}

// contentsLocked reads both sides of a change; ok is false when either is
// a submodule or too large to compare. r.mu must be held.
func (r *repo) contentsLocked(c rawChange) (a, b []byte, ok bool, err error) {
	for _, side := range []struct {
		s   fileSide
		out *[]byte
	}{{c.from, &a}, {c.to, &b}} {
		if side.s.path == "" {
			continue
		}
		if side.s.mode == filemode.Submodule {
			return nil, nil, false, nil
		}
		if side.s.disk != nil {
			data, err := readDisk(side.s.disk, side.s.path, side.s.mode == filemode.Symlink)
			if err != nil {
				return nil, nil, false, fmt.Errorf("reading %s from the working tree: %w", side.s.path, err)
			}
			if len(data) > maxDiffBlob {
				return nil, nil, false, nil
			}
			*side.out = data
			continue
		}
		data, small, err := r.smallObjectLocked(plumbing.BlobObject, side.s.hash, maxDiffBlob)
		if err != nil {
			return nil, nil, false, fmt.Errorf("blob of %s: %w", side.s.path, err)
		}
		if !small {
			return nil, nil, false, nil
		}
		*side.out = data
	}
	return a, b, true, nil
}

// Patch renders one file of a diff from base to s as git's unified
// format with contextLines lines of context: the diff --git header, mode,
// rename and index lines, then hunks, or a line saying that binary files
// differ. The file's paths are authorized again. To render several files,
// a [Patcher] reads the diff attributes once.
func (s *Snapshot) Patch(ctx context.Context, fc ChangedFile, contextLines int) ([]byte, error) {
	return s.Patcher().Patch(ctx, fc, contextLines)
}

// Patcher renders files of diffs to one snapshot, as [Snapshot.Patch]
// does. It reads once what the hunk headers of every file depend on: the
// commit HEAD names, whose .gitattributes choose the diff drivers (git
// reads them from the checkout). Reading HEAD for each file was most of
// the time of a repeated show_commit of a large commit.
type Patcher struct {
	s    *Snapshot
	head string // HEAD's commit, "" when there is none
}

// Patcher returns a renderer of the snapshot's patches.
func (s *Snapshot) Patcher() *Patcher {
	p := &Patcher{s: s}
	if h, err := s.Head(); err == nil {
		p.head = h.SHA
	}
	return p
}

// Patch renders one file of a diff, as [Snapshot.Patch].
func (p *Patcher) Patch(ctx context.Context, fc ChangedFile, contextLines int) ([]byte, error) {
	s := p.s
	for _, p := range []string{fc.Path, fc.OldPath} {
		if p == "" {
			continue
		}
		if _, err := s.Authorize(p, false); err != nil {
			return nil, err
		}
	}
	c := rawChange{similarity: fc.Similarity}
	oldPath := fc.Path
	if fc.OldPath != "" {
		oldPath = fc.OldPath
	}
	if fc.OldSHA != "" {
		c.from = fileSide{path: oldPath, mode: filemode.FileMode(fc.OldMode), hash: plumbing.NewHash(fc.OldSHA)}
	}
	if fc.NewSHA != "" {
		c.to = fileSide{path: fc.Path, mode: filemode.FileMode(fc.NewMode), hash: plumbing.NewHash(fc.NewSHA)}
		if s.rev.SHA == WorktreeRevision {
			c.to.disk = s.grant.ws.rootFS
		}
	}
	r := s.grant.ws.repo
	// A committed patch is cached by what it is rendered from, all of it
	// immutable; one of the working tree is not.
	rule, driver := s.funcRuleOf(p.head, oldPath, fc.Path)
	key := fmt.Sprint(fc, oldPath, contextLines, driver)
	cache := s.rev.SHA != WorktreeRevision
	r.mu.Lock()
	hc := r.historyLocked()
	if p, ok := hc.patches[key]; ok && cache {
		r.mu.Unlock()
		return p, nil
	}
	a, b, ok, err := r.contentsLocked(c)
	r.mu.Unlock()
	if err != nil {
		return nil, s.grant.ws.internalError("reading a file", err)
	}
	var w bytes.Buffer
	defer func() {
		if !cache {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if hc.patchBytes+w.Len() > maxPatchBytes {
			clear(hc.patches)
			hc.patchBytes = 0
		}
		if w.Len() <= maxPatchBytes/4 {
			hc.patches[key] = w.Bytes()
			hc.patchBytes += w.Len()
		}
	}()
	writePatchHeader(&w, fc, oldPath)
	switch {
	case fc.OldSHA == fc.NewSHA:
		// A mode change or a pure rename: no content lines.
	case !ok && (fc.OldMode == uint32(filemode.Submodule) || fc.NewMode == uint32(filemode.Submodule)):
		writeSubmodule(&w, fc)
	case !ok || isBinary(a) || isBinary(b):
		fmt.Fprintf(&w, "Binary files %s and %s differ\n", sideName("a/", oldPath, fc.OldSHA), sideName("b/", fc.Path, fc.NewSHA))
	default:
		fmt.Fprintf(&w, "--- %s\n+++ %s\n", sideName("a/", oldPath, fc.OldSHA), sideName("b/", fc.Path, fc.NewSHA))
		w.Write(diffLines(a, b).unified(contextLines, rule))
	}
	return w.Bytes(), nil
}

func writePatchHeader(w *bytes.Buffer, fc ChangedFile, oldPath string) {
	fmt.Fprintf(w, "diff --git a/%s b/%s\n", oldPath, fc.Path)
	switch {
	case fc.Status == StatusAdded:
		fmt.Fprintf(w, "new file mode %06o\n", fc.NewMode)
	case fc.Status == StatusDeleted:
		fmt.Fprintf(w, "deleted file mode %06o\n", fc.OldMode)
	case fc.OldMode != fc.NewMode:
		fmt.Fprintf(w, "old mode %06o\nnew mode %06o\n", fc.OldMode, fc.NewMode)
	}
	if fc.Status == StatusRenamed {
		fmt.Fprintf(w, "similarity index %d%%\nrename from %s\nrename to %s\n", fc.Similarity, fc.OldPath, fc.Path)
	}
	if fc.OldSHA == fc.NewSHA {
		return
	}
	fmt.Fprintf(w, "index %s..%s", full(fc.OldSHA), full(fc.NewSHA))
	if fc.OldMode == fc.NewMode {
		fmt.Fprintf(w, " %06o", fc.NewMode)
	}
	w.WriteByte('\n')
}

func writeSubmodule(w *bytes.Buffer, fc ChangedFile) {
	if fc.OldSHA != "" {
		fmt.Fprintf(w, "-Subproject commit %s\n", fc.OldSHA)
	}
	if fc.NewSHA != "" {
		fmt.Fprintf(w, "+Subproject commit %s\n", fc.NewSHA)
	}
}

// full is an object id as git diff --full-index writes it (zeros for an
// absent side): full ids, so that a caller can name the blob unambiguously.
func full(sha string) string {
	if sha == "" {
		return plumbing.ZeroHash.String()
	}
	return sha
}

func sideName(prefix, p, sha string) string {
	if sha == "" {
		return "/dev/null"
	}
	return prefix + p
}
