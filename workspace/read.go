package workspace

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// This file is the part of the read API that reaches past one tree: blobs
// by id, the difference between two snapshots, history, other commits of
// the same workspace, and the view shared indexes are built from. Like
// every Snapshot method, each applies the caller's policy to what it
// returns.

// ReadBlob reads the blob id that the snapshot holds at path: the id a
// Walk, Stat or Diff of this snapshot reported for it. The path is
// authorized as in [Snapshot.ReadFile], and the id must be what the
// snapshot has there, so an id never reads past the policy; what is saved
// is the stat of the file (its size and, for symlinks, its target). In the
// working tree, whose walks give no ids, id may be empty; otherwise the
// file is read and its content must hash to id.
func (s *Snapshot) ReadBlob(ctx context.Context, path, id string, opts ReadOptions) (File, error) {
	worktree := s.rev.SHA == WorktreeRevision
	if !plumbing.IsHash(id) && !(worktree && id == "") {
		return File{}, errclass.Errorf(errclass.InvalidInput, "blob id %s is not a full SHA", quoteInput(id))
	}
	if worktree {
		f, err := s.ReadFile(ctx, path, opts)
		if err == nil && id != "" && f.SHA != id {
			err = errclass.Errorf(errclass.NotFound, "path %s no longer holds blob %s", quoteInput(path), id)
		}
		return f, err
	}
	if opts.Offset < 0 || opts.Limit < 0 {
		return File{}, errclass.Errorf(errclass.InvalidInput, "offset and byte budget must not be negative")
	}
	clean, err := s.Authorize(path, false)
	if err != nil {
		return File{}, err
	}
	c := s.src.(*commitSource)
	te, err := c.lookup(clean)
	if err != nil {
		return File{}, err
	}
	if te.hash.String() != id {
		return File{}, errclass.Errorf(errclass.NotFound, "path %s does not hold blob %s at this revision", quoteInput(clean), id)
	}
	e := entryFor(clean, te)
	if e.Type != TypeFile {
		return File{}, errclass.Errorf(errclass.InvalidInput, "path %s is a %s, not a file", quoteInput(clean), e.Type)
	}
	if err := ctx.Err(); err != nil {
		return File{}, err
	}
	limit := opts.Limit
	if limit == 0 {
		limit = s.opts.ReadBudget
	}
	limit = min(limit, s.opts.MaxReadBytes)
	data, size, err := c.read(e, opts.Offset, limit, opts.Shared)
	if err != nil {
		return File{}, err
	}
	e.Size = size
	f := File{Entry: e, Offset: min(opts.Offset, size), Data: data}
	f.Truncated = f.Offset+int64(len(data)) < size
	return f, nil
}

// DiffStats counts what a Diff left out.
type DiffStats struct {
	// Omitted counts changed entries withheld by the secret patterns or
	// the caller's policies; a hidden directory counts once, as in a Walk,
	// since what is under it is not read.
	Omitted int
	// Invalid counts changed entries whose names cannot be shown.
	Invalid int
}

// Diff lists the paths (files, symlinks, submodules) that differ between
// base and s, sorted by path: OldSHA and OldMode are base's, NewSHA and
// NewMode are s's, an empty SHA meaning the path does not exist on that
// side. Both must be commits of the same workspace; subtrees with equal
// hashes are not read. Paths the caller may not see, and paths no name
// rule allows, are left out and counted. It is the tree diff
// [Snapshot.DiffFrom] makes, without renames or line counts.
func (s *Snapshot) Diff(ctx context.Context, base *Snapshot) ([]FileChange, DiffStats, error) {
	var stats DiffStats
	if s.rev.SHA == WorktreeRevision || base.rev.SHA == WorktreeRevision {
		return nil, stats, errclass.Errorf(errclass.InvalidInput, "a diff compares two commits, not the working tree")
	}
	if base.grant.ws != s.grant.ws {
		return nil, stats, errclass.Errorf(errclass.InvalidInput, "a diff compares two commits of one workspace")
	}
	if err := ctx.Err(); err != nil {
		return nil, stats, err
	}
	ws := s.grant.ws
	f := pathFilter{grant: s.grant, dropped: &stats}
	out, err := ws.fileChanges(base.src.(*commitSource).tree, s.src.(*commitSource).tree, f)
	return out, stats, err
}

// Commits calls fn for each commit reachable from the snapshot's revision
// (HEAD for the working tree), in git log's default order (newest
// committer time first), until fn returns an error or MaxAncestry commits
// have been visited. It is the walk [Snapshot.History] makes, without
// filters. In a shallow clone the walk ends at the boundary, as git log's
// does: a commit there is reported without parents. fn may return
// [fs.SkipAll] to end the walk without an error, as in [Snapshot.Walk].
// The repository is not locked while fn runs, so fn may read other
// snapshots.
func (s *Snapshot) Commits(ctx context.Context, fn func(Commit) error) error {
	ws := s.grant.ws
	r := ws.repo
	start := s.rev.SHA
	if start == WorktreeRevision {
		head, err := s.Head()
		if err != nil || head.SHA == "" {
			return err
		}
		start = head.SHA
	}
	r.mu.Lock()
	w := ws.newCommitWalkLocked()
	err := w.pushLocked(plumbing.NewHash(start))
	r.mu.Unlock()
	for n := 0; err == nil && n < MaxAncestry; n++ {
		if err = ctx.Err(); err != nil {
			return err
		}
		var c Commit
		var more bool
		if c, more, err = s.nextCommit(w); err != nil || !more {
			break
		}
		if err = fn(c); errors.Is(err, fs.SkipAll) {
			return nil
		}
	}
	var se *errclass.Error
	if err != nil && !errors.As(err, &se) && ctx.Err() == nil {
		return errclass.Errorf(errclass.Internal, "reading history failed").Wrap(ws.scrub(err))
	}
	return err
}

// nextCommit takes the next commit out of a walk, queues its parents and
// describes it. more is false when the walk has ended.
func (s *Snapshot) nextCommit(w *commitWalk) (c Commit, more bool, err error) {
	r := s.grant.ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	n, more := w.pop()
	if !more {
		return Commit{}, false, nil
	}
	for _, p := range n.parents {
		if err := w.pushLocked(p); err != nil {
			return Commit{}, false, err
		}
	}
	obj, err := r.commitObjectLocked(n.hash)
	if err != nil {
		return Commit{}, false, err
	}
	return commitOf(obj, n.parents), true, nil
}

// commitOf describes commit c, whose parents as the walk sees them (none
// past a shallow boundary) are given.
func commitOf(c *object.Commit, parents []plumbing.Hash) Commit {
	subject, _, _ := strings.Cut(c.Message, "\n")
	ids := make([]string, len(parents))
	for i, p := range parents {
		ids[i] = p.String()
	}
	return Commit{
		SHA: c.Hash.String(), Author: c.Author.Name, AuthorEmail: c.Author.Email,
		Time: c.Author.When, Subject: subject, Parents: ids,
	}
}

// At returns the commit sha of the same workspace, for the same caller and
// action: a parent, or a commit that [Snapshot.Commits] or a Diff named.
// sha must be a full commit SHA. A caller whose policy lets it read
// commits by SHA may name any commit; otherwise the commit must be one the
// snapshot's history reaches (within MaxAncestry commits), which the
// caller may read already.
func (s *Snapshot) At(ctx context.Context, sha string) (*Snapshot, error) {
	if !plumbing.IsHash(sha) {
		return nil, errclass.Errorf(errclass.InvalidInput, "commit %s is not a full SHA", quoteInput(sha))
	}
	ws := s.grant.ws
	h := plumbing.NewHash(sha)
	ws.repo.mu.Lock()
	_, err := ws.repo.commitLocked(h)
	ws.repo.mu.Unlock()
	if err != nil {
		return nil, errclass.Errorf(errclass.NotFound, "commit %s does not exist in workspace %q", sha, ws.id).Wrap(ws.scrub(err))
	}
	rev := Revision{Input: sha, SHA: sha, Ref: "commit"}
	if s.grant.checkRef(rev.Ref, sha) != nil {
		if !s.reaches(ctx, sha) {
			return nil, s.grant.checkRef(rev.Ref, sha)
		}
		rev.Ref = s.rev.Ref
	}
	src, err := newCommitSource(ws, h)
	if err != nil {
		return nil, err
	}
	return &Snapshot{grant: s.grant, rev: rev, src: src, opts: s.opts}, nil
}

// reaches reports whether sha is in the snapshot's history.
func (s *Snapshot) reaches(ctx context.Context, sha string) bool {
	found := false
	err := s.Commits(ctx, func(c Commit) error {
		if c.SHA == sha {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return err == nil && found
}

// Shared returns the same revision seen with the workspace's own rules
// only: entry names and secret patterns apply, the caller's policies do
// not. It is for building indexes keyed by content that every caller
// shares (a symbol index of a commit); whatever such an index answers must
// pass the caller's [Snapshot.Authorize] before it is shown.
func (s *Snapshot) Shared() *Snapshot {
	g := &grant{access: s.grant.access, ws: s.grant.ws, policies: []*policy{{name: "the workspace's own rules"}}}
	return &Snapshot{grant: g, rev: s.rev, src: s.src, opts: s.opts}
}
