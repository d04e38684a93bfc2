package workspace

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Head describes what HEAD points at.
type Head struct {
	// Ref is the branch HEAD is attached to ("refs/heads/main"), or "" when
	// HEAD is detached.
	Ref string
	// SHA is the commit HEAD resolves to ("" for a branch with no commits).
	SHA string
}

// Head reports HEAD of the snapshot's workspace (not of the snapshot's
// revision).
func (s *Snapshot) Head() (Head, error) {
	ws := s.grant.ws
	r := ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	ref, err := r.storage.Reference(plumbing.HEAD)
	if err != nil {
		return Head{}, ws.internalError("reading HEAD", err)
	}
	var h Head
	if ref.Type() == plumbing.SymbolicReference {
		h.Ref = ref.Target().String()
	}
	if resolved, err := r.refs.resolve(r.storage, plumbing.HEAD); err == nil {
		h.SHA = resolved.Hash().String()
	}
	return h, nil
}

// DefaultBranch returns the short name of the repository's default branch:
// the branch refs/remotes/origin/HEAD points at when there is one, else the
// branch HEAD is attached to, else "".
func (s *Snapshot) DefaultBranch() string {
	r := s.grant.ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	if ref, err := r.storage.Reference("refs/remotes/origin/HEAD"); err == nil && ref.Type() == plumbing.SymbolicReference {
		return strings.TrimPrefix(ref.Target().String(), "refs/remotes/origin/")
	}
	if ref, err := r.storage.Reference(plumbing.HEAD); err == nil && ref.Type() == plumbing.SymbolicReference {
		return ref.Target().Short()
	}
	return ""
}

// Ref is a branch or tag.
type Ref struct {
	Name string // full name, "refs/heads/main"
	SHA  string // the commit it names (annotated tags peeled); "" if it names no commit
}

// RefList is a bounded list of branches and tags.
type RefList struct {
	Branches      []Ref
	Tags          []Ref
	TotalBranches int
	TotalTags     int
	// Truncated is set when more branches or tags exist than were returned.
	Truncated bool
}

// Refs lists branches and tags the caller's policies let it read, sorted by
// name, at most limit of each.
func (s *Snapshot) Refs(limit int) (RefList, error) {
	ws := s.grant.ws
	r := ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	iter, err := r.storage.IterReferences()
	if err != nil {
		return RefList{}, ws.internalError("listing refs", err)
	}
	var branches, tags []*plumbing.Reference
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name().String()
		if ref.Type() != plumbing.HashReference || s.grant.checkRef(name, name) != nil {
			return nil
		}
		switch {
		case ref.Name().IsBranch():
			branches = append(branches, ref)
		case ref.Name().IsTag():
			tags = append(tags, ref)
		}
		return nil
	})
	if err != nil {
		return RefList{}, ws.internalError("listing refs", err)
	}
	list := RefList{TotalBranches: len(branches), TotalTags: len(tags)}
	list.Branches = s.peelRefsLocked(branches, limit)
	list.Tags = s.peelRefsLocked(tags, limit)
	list.Truncated = len(branches) > limit || len(tags) > limit
	return list, nil
}

func (s *Snapshot) peelRefsLocked(refs []*plumbing.Reference, limit int) []Ref {
	slices.SortFunc(refs, func(a, b *plumbing.Reference) int { return strings.Compare(a.Name().String(), b.Name().String()) })
	out := make([]Ref, 0, min(limit, len(refs)))
	for _, ref := range refs[:min(limit, len(refs))] {
		rf := Ref{Name: ref.Name().String()}
		if h, err := s.grant.ws.peelLocked(ref.Hash(), rf.Name); err == nil {
			rf.SHA = h.String()
		}
		out = append(out, rf)
	}
	return out
}

// Commit summarizes one commit.
type Commit struct {
	SHA         string
	Author      string
	AuthorEmail string
	Time        time.Time // author time
	Subject     string    // first line of the message
	Parents     []string  // SHAs of the parent commits, first parent first
}

// MaxLog bounds Log.
const MaxLog = 1000

// Log returns up to n commits reachable from the snapshot's revision
// (HEAD for the working tree), newest committer time first, as git log
// orders them by default.
func (s *Snapshot) Log(n int) ([]Commit, error) {
	n = min(max(n, 0), MaxLog)
	var out []Commit
	if n == 0 {
		return out, nil
	}
	err := s.Commits(context.Background(), func(c Commit) error {
		out = append(out, c)
		if len(out) == n {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
