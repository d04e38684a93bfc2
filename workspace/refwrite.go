package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// RefConflict is the error of a ref write whose compare failed: the ref
// no longer holds the value the caller expected.
type RefConflict struct {
	Name    string
	Current string // "" when the ref does not exist
}

func (e *RefConflict) Error() string {
	if e.Current == "" {
		return fmt.Sprintf("ref %s does not exist", e.Name)
	}
	return fmt.Sprintf("ref %s is at %s", e.Name, e.Current)
}

// ErrRefLocked is returned by a ref write when another writer (a git
// command, another replica) holds the ref's lock file.
var ErrRefLocked = errors.New("ref is locked by another writer")

// CheckRefName reports whether name is a full ref name a tool may
// write: under refs/, in git's check-ref-format rules, with no character
// git or a shell would read specially.
func CheckRefName(name string) error {
	rest, ok := strings.CutPrefix(name, "refs/")
	if !ok || rest == "" || len(name) > MaxRevisionBytes || !validRefName(name) ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") ||
		strings.ContainsAny(name, " ~^:?*[\\\x7f") || hasControl(name) || strings.HasPrefix(rest, "-") ||
		strings.Contains(name, "/-") {
		return errclass.Errorf(errclass.InvalidInput, "ref name %s is not allowed", quoteInput(name))
	}
	return nil
}

// BranchRef returns the full ref name of branch name, given short
// ("feature/x") or in full ("refs/heads/feature/x"). The name must pass
// git check-ref-format --branch, and must not be one git reads as
// something other than a branch: HEAD and the other pseudo-refs
// (FETCH_HEAD, ORIG_HEAD, ...), "@", or a full object id. A branch named
// HEAD, say, is refused by git branch and makes git warn that "HEAD" is
// ambiguous on every later use.
func BranchRef(name string) (string, error) {
	short := strings.TrimPrefix(name, "refs/heads/")
	var why string
	switch {
	case short == "":
		why = "is empty"
	case strings.HasPrefix(short, "refs/"):
		why = "names a ref outside refs/heads/"
	case strings.HasPrefix(short, "-"):
		why = "starts with '-'"
	case short == "@" || isPseudoRef(short):
		why = "is a name git reads as something other than a branch"
	case isObjectID(short):
		why = "reads as an object id"
	case CheckRefName("refs/heads/"+short) != nil:
		why = "breaks git's ref-name rules (no '..', '@{', control characters, space, ~^:?*[\\, " +
			"component starting with '.' or ending with '.lock', name ending with '.' or '/')"
	}
	if why != "" {
		return "", errclass.Errorf(errclass.InvalidInput, "branch name %s is not allowed: it %s", quoteInput(name), why)
	}
	return "refs/heads/" + short, nil
}

// isPseudoRef reports whether name is one of the names git keeps beside
// HEAD in the repository directory and resolves before refs/heads/ (see
// gitrevisions(7)).
func isPseudoRef(name string) bool {
	switch name {
	case "HEAD", "FETCH_HEAD", "ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD",
		"REVERT_HEAD", "REBASE_HEAD", "BISECT_HEAD", "AUTO_MERGE":
		return true
	}
	return false
}

// isObjectID reports whether s is a full SHA-1 or SHA-256 object id in
// hex, which git would resolve as the object rather than the branch.
func isObjectID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && isHex(s)
}

// readRef returns the commit SHA a ref names directly, or "" when the ref
// does not exist.
func (w *Workspace) readRef(name string) (string, error) {
	if err := CheckRefName(name); err != nil {
		return "", err
	}
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	return w.readRefLocked(name)
}

func (w *Workspace) readRefLocked(name string) (string, error) {
	ref, err := w.repo.storage.Reference(plumbing.ReferenceName(name))
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return "", nil
	case err != nil:
		return "", w.internalError("reading a ref", err)
	case ref.Type() != plumbing.HashReference:
		return "", errclass.Errorf(errclass.PreconditionFailed, "ref %s is symbolic", quoteInput(name))
	}
	return ref.Hash().String(), nil
}

// updateRef points ref name at newSHA if, and only if, it is now at oldSHA
// ("" meaning: it must not exist). It follows git's own protocol, a
// name.lock file created exclusively then renamed over the ref, so it is
// atomic against git commands and against other processes serving the same
// repository. A failed compare is a *RefConflict; a held lock is
// ErrRefLocked.
func (w *Workspace) updateRef(name, newSHA, oldSHA string) error {
	if err := CheckRefName(name); err != nil {
		return err
	}
	file := filepath.Join(w.refsDir(), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return w.internalError("creating a ref directory", err)
	}
	lock, err := w.lockFile(file)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			releaseLock(lock)
		}
	}()
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	cur, err := w.readRefLocked(name)
	if err != nil {
		return err
	}
	if cur != oldSHA {
		return &RefConflict{Name: name, Current: cur}
	}
	if _, err := lock.WriteString(newSHA + "\n"); err != nil {
		return w.internalError("writing a ref", err)
	}
	if err := lock.Sync(); err != nil {
		return w.internalError("writing a ref", err)
	}
	if !lockHeld(lock) {
		return ErrRefLocked
	}
	if err := lock.Close(); err != nil {
		return w.internalError("writing a ref", err)
	}
	if err := os.Rename(lock.Name(), file); err != nil {
		return w.internalError("writing a ref", err)
	}
	committed = true
	// The ref cache's stamps see the rename too (a new inode), but what this
	// process writes it must read back at once, whatever the file system's
	// timestamps say.
	r.refs.invalidate()
	return nil
}

// refsDir is the directory that holds refs/ and packed-refs.
func (w *Workspace) refsDir() string {
	if w.layout.commonDir != "" {
		return w.layout.commonDir
	}
	return w.layout.gitDir
}

// AuthorizeRef checks a full ref name against the refs the caller's
// policies for the snapshot's action allow (PolicyConfig.Refs): a tool that
// writes a branch checks it as a read of that branch would be checked.
func (s *Snapshot) AuthorizeRef(name string) error {
	if err := CheckRefName(name); err != nil {
		return err
	}
	return s.grant.checkRef(name, name)
}
