package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
)

// The journal of a worktree apply, and the recovery that rolls back an
// apply a crash interrupted.

// journal is what the git directory holds while an apply is in flight.
type journal struct {
	ID          string         `json:"id"`
	Base        string         `json:"base"`
	Files       []WorktreeFile `json:"files"`
	Temps       []string       `json:"temps"`        // staged files, by index of Files ("" for deletions)
	CreatedDirs []string       `json:"created_dirs"` // directories the apply creates, parents first
	// Forms are the files' checkout forms, by index of Files; a journal
	// written before they existed has none (every file as its blob).
	Forms []CheckoutForm `json:"forms,omitempty"`
}

// form returns the checkout form of file i.
func (j *journal) form(i int) CheckoutForm {
	if i < len(j.Forms) {
		return j.Forms[i]
	}
	return CheckoutForm{}
}

// Recovery reports a partial apply found and rolled back.
type Recovery struct {
	Workspace string
	ID        string   // the patch id of the interrupted apply
	Restored  []string // files put back to their base content
	Kept      []string // files changed by someone else since; left as they are
}

const (
	journalName = "repo-mcp-apply.json"
	lockName    = "repo-mcp-apply.lock"
)

func (w *Workspace) journalPath() string { return filepath.Join(w.layout.gitDir, journalName) }

func (w *Workspace) writeJournal(j *journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return w.internalError("encoding the apply journal", err)
	}
	tmp := w.journalPath() + ".tmp"
	if err := writeFileSync(tmp, data); err != nil {
		return w.internalError("writing the apply journal", err)
	}
	if err := os.Rename(tmp, w.journalPath()); err != nil {
		return w.internalError("writing the apply journal", err)
	}
	return syncDir(w.layout.gitDir)
}

func (w *Workspace) removeJournal() error {
	if err := os.Remove(w.journalPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return w.internalError("removing the apply journal", err)
	}
	if err := syncDir(w.layout.gitDir); err != nil {
		return w.internalError("removing the apply journal", err)
	}
	return nil
}

// recoverWorktree rolls back an apply that a crash interrupted, if the
// git directory holds its journal. It returns nil when there was none.
func (w *Workspace) recoverWorktree() (*Recovery, error) {
	if w.bare || w.rootFS == nil {
		return nil, nil
	}
	unlock, err := w.lockApply()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return w.recoverLocked()
}

// RecoverWorktrees runs recoverWorktree in every workspace. Call it once
// at start, before serving.
func (r *Registry) RecoverWorktrees() ([]Recovery, error) {
	var out []Recovery
	var errs []error
	for _, ws := range r.workspaces {
		rec, err := ws.recoverWorktree()
		if err != nil {
			errs = append(errs, fmt.Errorf("workspace %q: %w", ws.id, err))
		}
		if rec != nil {
			out = append(out, *rec)
		}
	}
	return out, errors.Join(errs...)
}

func (w *Workspace) recoverLocked() (*Recovery, error) {
	data, err := os.ReadFile(w.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, w.internalError("reading the apply journal", err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, w.internalError("decoding the apply journal", err)
	}
	rec, err := w.rollback(&j)
	if err != nil {
		return nil, w.internalError("rolling back an interrupted apply", err)
	}
	return rec, w.removeJournal()
}

// rollback puts every file of j that holds its new content back to its
// base content, and removes staged files and created directories. A file
// that holds neither is someone else's change: it is kept and reported.
func (w *Workspace) rollback(j *journal) (*Recovery, error) {
	rec := &Recovery{Workspace: w.id, ID: j.ID}
	for i, f := range j.Files {
		if j.Temps[i] != "" {
			w.inDir(j.Temps[i], func(dir *os.Root, name string) error { return dir.Remove(name) })
		}
		cur, err := w.worktreeBlob(f.Path)
		form := j.form(i)
		switch {
		case err != nil:
			rec.Kept = append(rec.Kept, f.Path)
			continue
		case cur == f.BaseSHA || cur == w.checkoutSHA(f.BaseSHA, form):
			continue
		case cur != f.NewSHA && cur != w.checkoutSHA(f.NewSHA, form):
			rec.Kept = append(rec.Kept, f.Path)
			continue
		}
		if err := w.restore(f, form, fmt.Sprintf(".%s.repo-mcp-restore-%d.tmp", path.Base(f.Path), i)); err != nil {
			return nil, err
		}
		rec.Restored = append(rec.Restored, f.Path)
	}
	for _, d := range slices.Backward(j.CreatedDirs) {
		w.inDir(d, func(dir *os.Root, name string) error { return dir.Remove(name) }) // only if empty
	}
	return rec, w.syncDirs(j)
}

// restore puts a file back to its base blob (or removes it, when it did
// not exist at the base).
func (w *Workspace) restore(f WorktreeFile, form CheckoutForm, tmpName string) error {
	if f.BaseSHA == "" {
		return w.inDir(f.Path, func(dir *os.Root, name string) error { return dir.Remove(name) })
	}
	data, err := w.ReadBlob(f.BaseSHA, 1<<30)
	if err != nil {
		return err
	}
	dir, _ := splitParent(f.Path)
	if err := w.checkParents(f.Path); err != nil {
		return err
	}
	if dir != "" {
		if err := w.rootFS.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return err
		}
	}
	tmp := joinPath(dir, tmpName)
	w.inDir(tmp, func(d *os.Root, name string) error { return d.Remove(name) }) // a leftover of an earlier crash
	if err := w.stage(tmp, form.Smudge(data), f.BaseMode); err != nil {
		return err
	}
	return w.inDir(f.Path, func(d *os.Root, name string) error { return d.Rename(path.Base(tmp), name) })
}

func writeFileSync(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
