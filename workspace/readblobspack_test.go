package workspace

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestReadBlobsPacked reads a bulk batch of a repository whose blobs are
// packed as chains of deltas, with one blob left loose and one over the
// bound: every blob must read as ReadBlob reads it, in the packs' order,
// and the checks ReadBlob makes must hold for every ref.
func TestReadBlobsPacked(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("packs are not mapped on Windows: go-git reads every blob")
	}
	repo := gitfixture.New(t)
	files := make(map[string]gitfixture.File)
	for step := range 3 {
		for i := range 2 * bulkReadRefs {
			// Files alike, each a little longer at every step: git stores
			// most of them as deltas of others.
			body := fmt.Sprintf("// file %d\n", i) + strings.Repeat(fmt.Sprintf("line of file %d, much like the others\n", i%7), 20+step*5+i%3)
			files[fmt.Sprintf("src/f%03d.go", i)] = gitfixture.Text(body)
		}
		files["big.txt"] = gitfixture.Text(strings.Repeat("b", 5000+step))
		files["secret/key"] = gitfixture.Text("bob may not read this\n")
		repo.Commit(t, fmt.Sprintf("step %d", step), files)
	}
	gitfixture.Git(t, repo.Dir, "repack", "-adf", "-q")
	files["loose.txt"] = gitfixture.Text("written after the repack, so loose\n")
	repo.Commit(t, "loose", files)

	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{
			{Identity: "local", Workspaces: []string{"*"}, Actions: []Action{ActionRead}},
			{Identity: "bob", Workspaces: []string{"ws"}, Actions: []Action{ActionRead}, Deny: []string{"secret/**"}},
		}
	})
	ctx := context.Background()
	snap := snapshot(t, reg, "HEAD")
	var refs []BlobRef
	if _, err := snap.Walk(ctx, "", WalkOptions{Recursive: true}, func(e Entry) error {
		if e.Type == TypeFile {
			refs = append(refs, BlobRef{Path: e.Path, SHA: e.SHA})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ids := make(map[string]string)
	for _, r := range refs {
		ids[r.Path] = r.SHA
	}

	t.Run("pack order", func(t *testing.T) {
		r := snap.Workspace().repo
		r.mu.Lock()
		pr := r.openPackReaderLocked()
		r.mu.Unlock()
		defer pr.close()
		order := locatePacked(refs, pr)
		deltas := 0
		for _, p := range order {
			if p.pack >= 0 {
				if typ, _, _, err := entryHeader(pr.packs[p.pack].pack, p.off); err == nil && typ == plumbing.OFSDeltaObject {
					deltas++
				}
			}
		}
		if deltas == 0 {
			t.Error("no blob is stored as a delta: the test reads no chain")
		}
		if last := refs[order[len(order)-1].i].Path; last != "loose.txt" || order[len(order)-1].pack != -1 {
			t.Errorf("last in order: %s in pack %d, want loose.txt in none", last, order[len(order)-1].pack)
		}
		for k, p := range order[:len(order)-1] {
			if p.pack < 0 {
				t.Errorf("%s was not found in the packs", refs[p.i].Path)
			} else if k > 0 && p.pack == order[k-1].pack && p.off < order[k-1].off {
				t.Errorf("%s at %d comes after %d", refs[p.i].Path, p.off, order[k-1].off)
			}
		}
	})

	t.Run("contents", func(t *testing.T) {
		checkReadBlobs(t, snap, refs, files, 4096, 2)
	})

	bob, err := reg.Snapshot(ctx, Access{Identity: "bob", Action: ActionRead}, "ws", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		snap  *Snapshot
		ref   BlobRef
		class errclass.Class
	}{
		{"another file's id", snap, BlobRef{"src/f000.go", ids["src/f001.go"]}, errclass.NotFound},
		{"a loose blob's id under a packed path", snap, BlobRef{"src/f000.go", ids["loose.txt"]}, errclass.NotFound},
		{"a path the policy denies", bob, BlobRef{"secret/key", ids["secret/key"]}, errclass.PermissionDenied},
		{"not an id", snap, BlobRef{"src/f000.go", "abc"}, errclass.InvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batch := append(append([]BlobRef(nil), refs...), tc.ref)
			err := tc.snap.ReadBlobs(ctx, batch, 1<<20, 2, func(i int, data []byte, _ int64, err error) error {
				if err == nil && batch[i] == tc.ref {
					t.Errorf("read %q: %q", tc.ref.Path, data)
				}
				if err != nil && batch[i] != tc.ref {
					t.Errorf("%s: %v", batch[i].Path, err)
					return nil
				}
				return err
			})
			wantClass(t, err, tc.class)
		})
	}
}
