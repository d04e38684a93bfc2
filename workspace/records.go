package workspace

import (
	"strings"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// RecordPrefix is where the records tools keep in a repository live: refs
// that name their own commits and blobs (proposals, histories, apply
// records), never a branch or a tag of the repository.
const RecordPrefix = "refs/repo-mcp/"

// Records reaches the refs under [RecordPrefix], and only those. Names are
// relative to the prefix ("patches/<id>"); a name that would leave it, or
// that git would refuse, is invalid_input. The refs are the tools' own
// bookkeeping, so no caller policy applies; the caller's rights were
// checked when the snapshot or workspace was handed out. Writes are
// compare-and-swap, with git's lock protocol, so they are safe against git
// commands and against other processes serving the same repository.
type Records struct{ w *Workspace }

// Records returns the workspace's records.
func (w *Workspace) Records() Records { return Records{w: w} }

func (r Records) full(name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "/") {
		return "", errclass.Errorf(errclass.InvalidInput, "record name %s is not allowed", quoteInput(name))
	}
	full := RecordPrefix + name
	if err := CheckRefName(full); err != nil {
		return "", err
	}
	return full, nil
}

// Read returns the object a record names, or "" when there is none.
func (r Records) Read(name string) (string, error) {
	full, err := r.full(name)
	if err != nil {
		return "", err
	}
	return r.w.readRef(full)
}

// Update points record name at newSHA if, and only if, it is now at oldSHA
// ("" meaning: it must not exist). A failed compare is a *RefConflict; a
// held lock is ErrRefLocked.
func (r Records) Update(name, newSHA, oldSHA string) error {
	full, err := r.full(name)
	if err != nil {
		return err
	}
	return r.w.updateRef(full, newSHA, oldSHA)
}

// Delete removes record name if, and only if, it is now at oldSHA. The
// objects it named stay until git gc collects them.
func (r Records) Delete(name, oldSHA string) error {
	full, err := r.full(name)
	if err != nil {
		return err
	}
	return r.w.deleteRef(full, oldSHA)
}

// List returns the records whose names start with prefix (relative, as
// "patches/"; "" lists them all), sorted by name, with names relative to
// [RecordPrefix].
func (r Records) List(prefix string) ([]Ref, error) {
	refs, err := r.w.listRefs(RecordPrefix + prefix)
	if err != nil {
		return nil, err
	}
	for i := range refs {
		refs[i].Name = strings.TrimPrefix(refs[i].Name, RecordPrefix)
	}
	return refs, nil
}

// ReadBranch returns the commit a branch (a full name under refs/heads/)
// names, or "" when it does not exist.
func (s *Snapshot) ReadBranch(name string) (string, error) {
	if err := checkBranchName(name); err != nil {
		return "", err
	}
	return s.grant.ws.readRef(name)
}

// MoveBranch points branch name (a full name under refs/heads/) at newSHA
// if, and only if, it is now at oldSHA ("" meaning: it must not exist).
// The caller must hold the apply action, and its policies must allow the
// branch as they would allow reading it (PolicyConfig.Refs). A failed
// compare is a *RefConflict; a held lock is ErrRefLocked.
func (s *Snapshot) MoveBranch(name, newSHA, oldSHA string) error {
	if err := checkBranchName(name); err != nil {
		return err
	}
	if s.grant.access.Action != ActionApply {
		return errclass.Errorf(errclass.PermissionDenied, "moving branch %s needs the %s action, not %s",
			quoteInput(name), ActionApply, s.grant.access.Action)
	}
	if err := s.grant.checkRef(name, name); err != nil {
		return err
	}
	return s.grant.ws.updateRef(name, newSHA, oldSHA)
}

func checkBranchName(name string) error {
	if err := CheckRefName(name); err != nil {
		return err
	}
	if !strings.HasPrefix(name, "refs/heads/") {
		return errclass.Errorf(errclass.InvalidInput, "ref %s is not a branch (refs/heads/...)", quoteInput(name))
	}
	_, err := BranchRef(name) // git's branch-name rules: no HEAD, @, object ids
	return err
}
