package workspace

import (
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// A shallow clone (git clone --depth) has commits whose parents were never
// fetched: git lists them in the repository's "shallow" file, the
// boundary. Walking history stops at the boundary as git log does, and a
// revision that names a commit beyond it (HEAD~5 in a clone of depth 2) is
// not_found, saying why, rather than an internal failure to read an object
// that was never there.

// Shallow reports whether the workspace's repository is a shallow clone.
func (w *Workspace) Shallow() (bool, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	boundary, err := r.storage.Shallow()
	if err != nil {
		return false, w.internalError("reading the shallow boundary", err)
	}
	return len(boundary) > 0, nil
}

// boundaryLocked returns the commits on the shallow boundary: those whose
// parents were not fetched. r.mu must be held. An unreadable shallow file
// reads as no boundary: the commits' parents are then missing objects,
// which are internal errors, as they would be without it.
func (w *Workspace) boundaryLocked() []plumbing.Hash {
	boundary, _ := w.repo.storage.Shallow()
	return boundary
}

// atBoundaryLocked reports whether commit h is on the shallow boundary.
// r.mu must be held.
func (w *Workspace) atBoundaryLocked(h plumbing.Hash) bool {
	return slices.Contains(w.boundaryLocked(), h)
}

// A BoundaryError is the cause of a not_found error for a step from a commit
// on a shallow clone's boundary to one of its parents, which were never
// fetched: a revision such as HEAD~5 in a clone of depth 2, or
// Snapshot.Parent of the boundary commit. A caller that can do without the
// parent (a tool showing the boundary commit as if it were a root) finds it
// with errors.As; any other caller passes the not_found on.
type BoundaryError struct {
	Workspace string // the workspace's id
	Commit    string // the commit on the boundary, a full SHA
}

func (e *BoundaryError) Error() string {
	return fmt.Sprintf("workspace %q is a shallow clone: the parents of commit %s were not fetched", e.Workspace, e.Commit)
}

// beyondBoundary is the error of a revision that steps from commit
// boundary, on the shallow boundary, to one of its parents.
func (w *Workspace) beyondBoundary(input string, boundary plumbing.Hash) *errclass.Error {
	return errclass.Errorf(errclass.NotFound,
		"revision %s reaches past the shallow boundary of workspace %q: the repository is a shallow clone, and the parents of commit %s were not fetched",
		quoteInput(input), w.id, boundary).
		WithHint("name a commit within the clone's history (repo_info lists the recent ones); an operator can deepen the clone with git fetch --deepen or --unshallow").
		Wrap(&BoundaryError{Workspace: w.id, Commit: boundary.String()})
}

// parentsFetched returns the error of a step to the n-th parent of commit
// when commit is on the shallow boundary, and nil otherwise.
func (w *Workspace) parentsFetched(commit plumbing.Hash, n int) error {
	w.repo.mu.Lock()
	defer w.repo.mu.Unlock()
	if !w.atBoundaryLocked(commit) {
		return nil
	}
	return w.beyondBoundary(fmt.Sprintf("%s^%d", commit, n), commit)
}

// shallowNoteLocked is what a not_found adds when the repository is a
// shallow clone: the object may be one it never fetched. r.mu must be held.
func (w *Workspace) shallowNoteLocked() string {
	if len(w.boundaryLocked()) > 0 {
		return " (the repository is a shallow clone: commits before its boundary were not fetched)"
	}
	return ""
}
