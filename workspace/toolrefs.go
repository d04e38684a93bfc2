package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// This file lists and deletes refs, for the records under RecordPrefix
// (see records.go), which are the only callers: a branch is moved through
// Snapshot.MoveBranch, which checks the caller's ref policy.

// listRefs returns the refs whose names start with prefix, which must
// start with "refs/", sorted by name. Each SHA is the object the ref names
// directly (a blob, for some records; nothing is peeled). Symbolic refs
// are left out.
//
// It reads packed-refs and the loose refs under the prefix's directory
// only, as git for-each-ref does, not every ref of the repository: the
// patch tools list their own refs on every proposal, in repositories
// with many thousands of tags.
func (w *Workspace) listRefs(prefix string) ([]Ref, error) {
	if !strings.HasPrefix(prefix, "refs/") {
		return nil, errclass.Errorf(errclass.InvalidInput, "ref prefix %s does not start with refs/", quoteInput(prefix))
	}
	found := map[string]string{}
	if err := w.packedRefs(prefix, found); err != nil {
		return nil, err
	}
	if err := w.looseRefs(prefix, found); err != nil {
		return nil, err
	}
	out := make([]Ref, 0, len(found))
	for name, sha := range found {
		out = append(out, Ref{Name: name, SHA: sha})
	}
	slices.SortFunc(out, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// packedRefs adds the refs of packed-refs whose names start with prefix.
func (w *Workspace) packedRefs(prefix string, found map[string]string) error {
	data, err := os.ReadFile(filepath.Join(w.refsDir(), "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return w.internalError("reading packed-refs", err)
	}
	for line := range strings.Lines(string(data)) {
		sha, name, ok := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		if ok && strings.HasPrefix(name, prefix) && isHexSHA(sha) {
			found[name] = sha
		}
	}
	return nil
}

// looseRefs adds (over packed ones) the loose refs whose names start with
// prefix: the files below the prefix's last complete directory. A loose
// symbolic ref hides a packed ref of its name, as in git.
func (w *Workspace) looseRefs(prefix string, found map[string]string) error {
	dir := prefix[:strings.LastIndexByte(prefix, '/')+1]
	root := filepath.Join(w.refsDir(), filepath.FromSlash(dir))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // no loose ref there (or one deleted meanwhile)
		case err != nil:
			return err
		case !d.Type().IsRegular() || strings.HasSuffix(p, ".lock"):
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := dir + filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) {
			return nil
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if sha := strings.TrimSpace(string(data)); isHexSHA(sha) {
			found[name] = sha
		} else {
			delete(found, name)
		}
		return nil
	})
	if err != nil {
		return w.internalError("listing refs", err)
	}
	return nil
}

// isHexSHA reports whether s is a full SHA-1 in lowercase hex, as git
// writes them in ref files.
func isHexSHA(s string) bool {
	return len(s) == 40 && isHex(s) && strings.ToLower(s) == s
}

// deleteRef removes ref name if, and only if, it is now at oldSHA. It
// follows git's protocol, as updateRef does: holding the ref's lock and
// packed-refs' lock, it rewrites packed-refs without the ref when the ref
// is packed there, then removes the loose file; so neither a git command
// nor another process serving the repository can change the ref or pack
// it meanwhile. A failed compare (the ref moved, or is gone) is a
// *RefConflict; a held lock is ErrRefLocked. The objects the ref named
// stay in the repository until git gc collects them.
func (w *Workspace) deleteRef(name, oldSHA string) error {
	if err := CheckRefName(name); err != nil {
		return err
	}
	if oldSHA == "" {
		return errclass.Errorf(errclass.InvalidInput, "deleting ref %s needs the value it holds", quoteInput(name))
	}
	file := filepath.Join(w.refsDir(), filepath.FromSlash(name))
	// The ref may be packed only, its directory gone; its lock needs one.
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return w.internalError("creating a ref directory", err)
	}
	unlock, err := w.holdLock(file)
	if err != nil {
		return err
	}
	defer unlock()
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
	packed := filepath.Join(w.refsDir(), "packed-refs")
	unlockPacked, err := w.holdLock(packed)
	if err != nil {
		return err
	}
	defer unlockPacked()
	if err := w.unpackLocked(packed, name); err != nil {
		return err
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return w.internalError("deleting a ref", err)
	}
	r.refs.invalidate()
	return nil
}

// holdLock takes git's lock on file and returns its release.
func (w *Workspace) holdLock(file string) (func(), error) {
	lock, err := w.lockFile(file)
	if err != nil {
		return nil, err
	}
	return func() { releaseLock(lock) }, nil
}

// unpackLocked rewrites packed-refs without name when name is packed
// there. The caller holds packed-refs.lock, and keeps it until the loose
// file is gone too; the new contents go through packed-refs.new, as git
// writes them, so that the lock stays held across the rename.
func (w *Workspace) unpackLocked(packed, name string) error {
	data, err := os.ReadFile(packed)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return w.internalError("reading packed-refs", err)
	}
	kept, found := withoutPackedRef(data, name)
	if !found {
		return nil
	}
	tmp, err := os.OpenFile(packed+".new", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return w.internalError("writing packed-refs", err)
	}
	_, err = tmp.Write(kept)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), packed)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return w.internalError("writing packed-refs", err)
	}
	return nil
}

// withoutPackedRef returns packed-refs data without the line of ref name
// and the peeled ("^") lines that follow it, and whether the line was
// there.
func withoutPackedRef(data []byte, name string) ([]byte, bool) {
	var out bytes.Buffer
	found, dropping := false, false
	for line := range bytes.Lines(data) {
		text := strings.TrimRight(string(line), "\n")
		if dropping && strings.HasPrefix(text, "^") {
			continue
		}
		_, ref, _ := strings.Cut(text, " ")
		dropping = !strings.HasPrefix(text, "#") && !strings.HasPrefix(text, "^") && ref == name
		if dropping {
			found = true
			continue
		}
		out.Write(line)
	}
	return out.Bytes(), found
}
