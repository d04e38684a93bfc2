package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// A worktree apply writes a patch's files into the working tree, all or
// nothing. Before anything is written, a journal naming every file (with
// the blob it held at the base and the blob it will hold) is written to
// the git directory. New contents are staged in temporary files beside
// their targets, then renamed over them one by one; removing the journal
// is the commit point. A crash before that leaves the journal behind, and
// the next start (or the next apply) rolls the files back to their base
// blobs, which the object store still holds.

// WorktreeFile is one file of a worktree apply.
type WorktreeFile struct {
	Path     string // clean path
	BaseSHA  string // the blob the file holds at the base; "" if it does not exist there
	BaseMode uint32
	NewSHA   string // the blob to write; "" to delete the file
	NewMode  uint32
}

// WorktreeApply is a set of files to write into the working tree.
type WorktreeApply struct {
	// ID names the apply (the patch id); it is recorded in the journal.
	ID string
	// Base is the commit HEAD must point at.
	Base  string
	Files []WorktreeFile
	// AfterFile, when set, runs with -1 once every new content is staged,
	// then with i after the i-th file is in place. Tests use it to stop a
	// process in the middle of an apply.
	AfterFile func(i int)
}

// Conflict says why one file of the working tree no longer matches the
// base a patch was made on.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// StaleError is a precondition_failed apply: HEAD moved, or files differ
// from their base blobs. It is wrapped in a *errclass.Error.
type StaleError struct {
	Head      string
	Conflicts []Conflict
}

func (e *StaleError) Error() string { return fmt.Sprintf("%d conflicts", len(e.Conflicts)) }

// CheckWorktree compares the working tree with what an apply expects:
// HEAD at base, each file holding its base blob (or absent) as git would
// check it out (see CheckoutForm). It returns the conflicts and HEAD's
// commit.
func (s *Snapshot) CheckWorktree(ctx context.Context, base string, files []WorktreeFile) ([]Conflict, string, error) {
	conflicts, head, _, err := s.checkWorktree(ctx, base, files)
	return conflicts, head, err
}

// checkWorktree is CheckWorktree, and the checkout form of each file.
func (s *Snapshot) checkWorktree(ctx context.Context, base string, files []WorktreeFile) ([]Conflict, string, []CheckoutForm, error) {
	ws := s.grant.ws
	if err := ws.checkWorktreeWritable(); err != nil {
		return nil, "", nil, err
	}
	head, err := s.Head()
	if err != nil {
		return nil, "", nil, err
	}
	rules, err := ws.checkoutRules(base)
	if err != nil {
		return nil, "", nil, err
	}
	forms := make([]CheckoutForm, len(files))
	var conflicts []Conflict
	if head.SHA != base {
		conflicts = append(conflicts, Conflict{Path: "", Reason: fmt.Sprintf("HEAD is at %s, not at the base %s", head.SHA, base)})
	}
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, "", nil, err
		}
		if _, err := s.Authorize(f.Path, false); err != nil {
			return nil, "", nil, err
		}
		forms[i] = rules.form(f.Path)
		if forms[i].Refuse != "" {
			conflicts = append(conflicts, Conflict{Path: f.Path, Reason: "the file has the gitattributes attribute " + forms[i].Refuse +
				": git converts it on checkout in a way repo-mcp cannot reproduce; apply to a branch instead"})
			continue
		}
		if reason := ws.fileState(f.Path, f.BaseSHA, forms[i]); reason != "" {
			conflicts = append(conflicts, Conflict{Path: f.Path, Reason: reason})
		}
	}
	return conflicts, head.SHA, forms, nil
}

func (w *Workspace) checkWorktreeWritable() error {
	switch {
	case w.bare:
		return errclass.Errorf(errclass.InvalidInput, "workspace %q is a bare repository: it has no working tree", w.id)
	case w.rootFS == nil:
		return errclass.Errorf(errclass.PermissionDenied, "workspace %q does not allow working tree access", w.id).
			WithHint("apply to a branch instead, or ask the operator to set worktree: true")
	}
	return nil
}

// fileState returns "" when the working tree file at p holds blob want
// ("" meaning: absent), as it is or in checkout form f, else why not.
func (w *Workspace) fileState(p, want string, f CheckoutForm) string {
	got, err := w.worktreeBlob(p)
	switch {
	case err != nil:
		return err.Error()
	case got == want:
		return ""
	case want == "":
		return "the file exists in the working tree but not at the base"
	case got == "":
		return "the file is missing from the working tree"
	case f.CRLF:
		if w.checkoutSHA(want, f) == got {
			return ""
		}
		return "the file differs from its base content as git checks it out (CRLF line ends, " + f.Why + ")"
	}
	return "the file differs from its base content"
}

// worktreeBlob hashes the regular file at p ("" when absent). Symlinks and
// anything else that is not a regular file are errors.
func (w *Workspace) worktreeBlob(p string) (string, error) {
	if err := w.checkParents(p); err != nil {
		return "", err
	}
	src := &worktreeSource{ws: w}
	dir, err := src.openDir(path.Dir(p))
	if err != nil {
		if errclass.ClassOf(err) == errclass.NotFound {
			return "", nil
		}
		return "", err
	}
	defer src.closeDir(dir)
	fi, err := dir.Lstat(path.Base(p))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("the file cannot be read")
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("the path is not a regular file in the working tree")
	}
	data, err := dir.ReadFile(path.Base(p))
	if err != nil {
		return "", fmt.Errorf("the file cannot be read")
	}
	return blobSHA(data), nil
}

// ApplyWorktree writes the files of a into the working tree, all or
// nothing, if HEAD is still a.Base and every file still holds its base
// blob. Another apply in flight on the same working tree (in this process
// or another) makes it precondition_failed; so does a stale file, with a
// *StaleError as the cause.
func (s *Snapshot) ApplyWorktree(ctx context.Context, a WorktreeApply) error {
	ws := s.grant.ws
	if err := ws.checkWorktreeWritable(); err != nil {
		return err
	}
	unlock, err := ws.lockApply()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := ws.recoverLocked(); err != nil {
		return err
	}
	conflicts, head, forms, err := s.checkWorktree(ctx, a.Base, a.Files)
	if err != nil {
		return err
	}
	if len(conflicts) > 0 {
		e := errclass.Errorf(errclass.PreconditionFailed, "the working tree no longer matches the base: %s %s", conflicts[0].Path, conflicts[0].Reason)
		e.Details = conflicts
		return e.Wrap(&StaleError{Head: head, Conflicts: conflicts})
	}
	j, contents, err := ws.planJournal(a, forms)
	if err != nil {
		return err
	}
	if err := ws.writeJournal(j); err != nil {
		return err
	}
	if err := ws.applyJournal(j, contents, a.AfterFile); err != nil {
		if _, rerr := ws.rollback(j); rerr != nil {
			return ws.internalError("rolling back a failed apply", errors.Join(err, rerr))
		}
		ws.removeJournal()
		if stale, ok := err.(*StaleError); ok {
			e := errclass.Errorf(errclass.PreconditionFailed, "%s changed during the apply (%s); nothing was applied",
				stale.Conflicts[0].Path, stale.Conflicts[0].Reason)
			e.Details = stale.Conflicts
			return e.Wrap(stale)
		}
		return ws.internalError("writing the working tree", err)
	}
	return ws.removeJournal()
}

// planJournal reads the new contents in their checkout forms and decides
// the staging names and the directories to create.
func (w *Workspace) planJournal(a WorktreeApply, forms []CheckoutForm) (*journal, [][]byte, error) {
	j := &journal{ID: a.ID, Base: a.Base, Files: a.Files, Temps: make([]string, len(a.Files)), Forms: forms}
	contents := make([][]byte, len(a.Files))
	created := map[string]bool{}
	for i, f := range a.Files {
		if f.NewSHA == "" {
			continue
		}
		data, err := w.ReadBlob(f.NewSHA, 1<<30)
		if err != nil {
			return nil, nil, err
		}
		contents[i] = forms[i].Smudge(data)
		dir, name := splitParent(f.Path)
		j.Temps[i] = joinPath(dir, fmt.Sprintf(".%s.repo-mcp-%.12s-%d.tmp", name, a.ID, i))
		for d := dir; d != "" && !created[d]; d, _ = splitParent(d) {
			if _, err := w.rootFS.Lstat(filepath.FromSlash(d)); err == nil {
				break
			}
			created[d] = true
		}
	}
	for d := range created {
		j.CreatedDirs = append(j.CreatedDirs, d)
	}
	slices.Sort(j.CreatedDirs) // parents before children
	return j, contents, nil
}

// applyJournal stages every new file, then renames each into place.
func (w *Workspace) applyJournal(j *journal, contents [][]byte, after func(int)) error {
	for _, d := range j.CreatedDirs {
		err := w.inDir(d, func(dir *os.Root, name string) error { return dir.Mkdir(name, 0o755) })
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	for i, f := range j.Files {
		if f.NewSHA == "" {
			continue
		}
		if err := w.stage(j.Temps[i], contents[i], f.NewMode); err != nil {
			return err
		}
	}
	if after != nil {
		after(-1) // every new content is staged; nothing is in place yet
	}
	for i, f := range j.Files {
		// Checked again just before the file is replaced: a person's edit
		// made since the first check stops the apply (which then rolls
		// back) instead of being overwritten.
		if reason := w.fileState(f.Path, f.BaseSHA, j.form(i)); reason != "" {
			return &StaleError{Conflicts: []Conflict{{Path: f.Path, Reason: reason}}}
		}
		tmp := path.Base(j.Temps[i])
		err := w.inDir(f.Path, func(dir *os.Root, name string) error {
			if f.NewSHA == "" {
				return dir.Remove(name)
			}
			return dir.Rename(tmp, name)
		})
		if err != nil {
			return err
		}
		if after != nil {
			after(i)
		}
	}
	return w.syncDirs(j)
}

// stage writes data to a new file at p and flushes it.
func (w *Workspace) stage(p string, data []byte, mode uint32) error {
	perm := fs.FileMode(0o644)
	if mode == ModeExecutable {
		perm = 0o755
	}
	return w.inDir(p, func(dir *os.Root, name string) error { return writeStaged(dir, name, data, perm) })
}

func writeStaged(dir *os.Root, name string, data []byte, perm fs.FileMode) error {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|openNoFollow, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil { // the umask may have narrowed it
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (w *Workspace) syncDirs(j *journal) error {
	dirs := map[string]bool{}
	for _, f := range j.Files {
		d, _ := splitParent(f.Path)
		dirs[d] = true
	}
	for d := range dirs {
		name := "."
		if d != "" {
			name = filepath.FromSlash(d)
		}
		f, err := w.rootFS.Open(name)
		if err != nil {
			continue // removed meanwhile; nothing to flush
		}
		f.Sync()
		f.Close()
	}
	return nil
}

// inDir runs fn on the directory holding the clean path p, opened one
// component at a time without following symlinks (see worktreeSource), and
// the base name of p.
func (w *Workspace) inDir(p string, fn func(dir *os.Root, name string) error) error {
	src := &worktreeSource{ws: w}
	dir, err := src.openDir(path.Dir(p))
	if err != nil {
		return err
	}
	defer src.closeDir(dir)
	return fn(dir, path.Base(p))
}

// checkParents refuses a path whose existing ancestors are not all real
// directories (a symlink there would redirect a write, even into .git).
func (w *Workspace) checkParents(p string) error {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		fi, err := w.rootFS.Lstat(filepath.FromSlash(p[:i]))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || !fi.IsDir() {
			return fmt.Errorf("%s is not a directory in the working tree", p[:i])
		}
	}
	return nil
}
