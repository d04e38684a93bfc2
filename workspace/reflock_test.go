package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStaleRefLockBroken leaves a ref's lock file as a writer killed while
// holding it would, and writes the ref: refused while the lock may be a
// live writer's, taken once this process has seen the same file for
// RefLockStale, and refused again when the writer put a new lock there.
func TestStaleRefLockBroken(t *testing.T) {
	const ref = "refs/repo-mcp/applied/x/branch-1"
	repo, commits := basicRepo(t)
	w := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Workspace()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	w.locks.now = func() time.Time { return now }
	file := filepath.Join(w.refsDir(), filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	leave := func() {
		t.Helper()
		if err := os.WriteFile(file+".lock", []byte("dead writer\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	update := func(after time.Duration, want error) {
		t.Helper()
		now = now.Add(after)
		if err := w.updateRef(ref, commits[1], ""); !errors.Is(err, want) {
			t.Fatalf("after %v: updateRef = %v, want %v", after, err, want)
		}
	}
	leave()
	update(0, ErrRefLocked)
	update(RefLockStale/2, ErrRefLocked)
	// The same file, seen long after its writer died: another lock of
	// the writer's, had it lived, would be a new file.
	os.Remove(file + ".lock")
	leave()
	update(RefLockStale, ErrRefLocked) // a new file: its age starts again
	update(RefLockStale, nil)
	if got, _ := w.readRef(ref); got != commits[1] {
		t.Errorf("ref = %q after breaking the lock, want %s", got, commits[1])
	}
	entries, _ := os.ReadDir(w.refsDir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "repo-mcp-stale-lock-") {
			t.Errorf("the stale lock is left at %s", e.Name())
		}
	}
	if _, err := os.Stat(file + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after the write: %v", err)
	}
}

// TestTakenLockIsNotPublished: a writer whose lock was taken while it
// stalled fails its write, and neither publishes nor removes the file
// that is at the lock's path now.
func TestTakenLockIsNotPublished(t *testing.T) {
	repo, _ := basicRepo(t)
	w := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Workspace()
	file := filepath.Join(t.TempDir(), "ref")
	lock, err := w.lockFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !lockHeld(lock) {
		t.Fatal("a fresh lock is not held")
	}
	// Another process breaks it and takes the lock.
	if err := os.Rename(lock.Name(), file+".aside"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock.Name(), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lockHeld(lock) {
		t.Error("lockHeld says a taken lock is held")
	}
	releaseLock(lock)
	if data, err := os.ReadFile(file + ".lock"); err != nil || string(data) != "theirs\n" {
		t.Errorf("the taker's lock after our release: %q, %v", data, err)
	}
}
