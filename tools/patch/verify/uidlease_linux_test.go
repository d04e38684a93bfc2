//go:build linux

package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestUIDLease: leases of one directory are exclusive, whichever leaser
// (another server of the host) holds them; a full range waits until its
// context ends; a given-back uid is leased again.
func TestUIDLease(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "leases")
	a := uidLeaser{dir: dir, first: 70000, count: 2, poll: time.Millisecond}
	b := a // a second server sharing the directory
	uid1, release1, err := a.lease(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	uid2, release2, err := b.lease(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if uid1 == uid2 || uid1 < 70000 || uid1 > 70001 || uid2 < 70000 || uid2 > 70001 {
		t.Fatalf("leased %d and %d, want 70000 and 70001", uid1, uid2)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := a.lease(ctx); !errors.Is(err, errNoUID) {
		t.Fatalf("a third lease of two uids: %v, want %v", err, errNoUID)
	}
	release2()
	uid3, release3, err := a.lease(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if uid3 != uid2 {
		t.Errorf("leased %d, want the given-back %d", uid3, uid2)
	}
	release1()
	release3()
}

// TestUIDLeaseDirectory: the leases' directory is refused when it could
// be another user's, or a link to one.
func TestUIDLeaseDirectory(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	private := filepath.Join(base, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{open, link} {
		l := uidLeaser{dir: dir, first: 70000, count: 1, poll: time.Millisecond}
		if _, _, err := l.lease(t.Context()); err == nil {
			t.Errorf("%s: leased", filepath.Base(dir))
		}
	}
}
