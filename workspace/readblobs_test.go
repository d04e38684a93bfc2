package workspace

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestReadBlobs reads batches below and above bulkReadRefs (the shared
// handle and handles of the batch's own), and checks that each path of a
// batch passes the checks ReadBlob makes.
func TestReadBlobs(t *testing.T) {
	repo := gitfixture.New(t)
	files := map[string]gitfixture.File{
		".env":       gitfixture.Text("TOKEN=secret\n"),
		"big.txt":    gitfixture.Text(string(make([]byte, 100))),
		"empty.txt":  gitfixture.Text(""),
		"secret/key": gitfixture.Text("bob may not read this\n"),
	}
	for i := range 2 * bulkReadRefs {
		files[fmt.Sprintf("src/f%03d.go", i)] = gitfixture.Text(fmt.Sprintf("package f // %d\n", i))
	}
	repo.Commit(t, "many", files)
	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{
			{Identity: "local", Workspaces: []string{"*"}, Actions: []Action{ActionRead}},
			{Identity: "bob", Workspaces: []string{"ws"}, Actions: []Action{ActionRead}, Deny: []string{"secret/**"}},
		}
	})
	ctx := context.Background()
	snap := snapshot(t, reg, "HEAD")
	bob, err := reg.Snapshot(ctx, Access{Identity: "bob", Action: ActionRead}, "ws", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{".env": blobSHA([]byte(files[".env"].Content))}
	if _, err := snap.Walk(ctx, "", WalkOptions{Recursive: true}, func(e Entry) error {
		ids[e.Path] = e.SHA
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var small, bulk []BlobRef
	for p := range files {
		if sha, ok := ids[p]; ok && p != ".env" && p != "secret/key" {
			bulk = append(bulk, BlobRef{Path: p, SHA: sha})
		}
	}
	small = bulk[:3]
	if len(bulk) <= bulkReadRefs {
		t.Fatalf("the bulk batch has %d refs, not more than %d", len(bulk), bulkReadRefs)
	}
	for _, refs := range [][]BlobRef{small, bulk} {
		t.Run(fmt.Sprintf("%d refs", len(refs)), func(t *testing.T) {
			checkReadBlobs(t, snap, refs, files, 50, 3)
		})
	}
	for _, tc := range []struct {
		name  string
		snap  *Snapshot
		ref   BlobRef
		class errclass.Class
	}{
		{"a secret, by its id", snap, BlobRef{".env", ids[".env"]}, errclass.PermissionDenied},
		{"a secret's id under an allowed path", snap, BlobRef{"src/f000.go", ids[".env"]}, errclass.NotFound},
		{"a path the policy denies", bob, BlobRef{"secret/key", ids["secret/key"]}, errclass.PermissionDenied},
		{"a directory", snap, BlobRef{"src", ids["src/f000.go"]}, errclass.NotFound},
		{"not an id", snap, BlobRef{"src/f000.go", "abc"}, errclass.InvalidInput},
		{"an escape", snap, BlobRef{"../x", ids["src/f000.go"]}, errclass.InvalidInput},
	} {
		for _, refs := range [][]BlobRef{small, bulk} {
			t.Run(fmt.Sprintf("%s in %d refs", tc.name, len(refs)), func(t *testing.T) {
				batch := append(append([]BlobRef(nil), refs[:len(refs)/2]...), tc.ref)
				batch = append(batch, refs[len(refs)/2:]...)
				err := tc.snap.ReadBlobs(ctx, batch, 1<<20, 2, func(i int, data []byte, _ int64, err error) error {
					if err == nil && batch[i] == tc.ref {
						t.Errorf("read %q: %q", tc.ref.Path, data)
					}
					return err
				})
				wantClass(t, err, tc.class)
			})
		}
	}
}

// checkReadBlobs reads refs in one batch and checks that every ref is given
// once, with its file's size, and with its content when within bound.
func checkReadBlobs(t *testing.T, snap *Snapshot, refs []BlobRef, files map[string]gitfixture.File, bound int64, workers int) {
	t.Helper()
	var mu sync.Mutex
	seen := make(map[int]bool)
	err := snap.ReadBlobs(context.Background(), refs, bound, workers, func(i int, data []byte, size int64, err error) error {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			return err
		}
		want := files[refs[i].Path].Content
		switch {
		case seen[i]:
			t.Errorf("%s given twice", refs[i].Path)
		case size != int64(len(want)):
			t.Errorf("%s: size %d, want %d", refs[i].Path, size, len(want))
		case int64(len(want)) > bound && data != nil:
			t.Errorf("%s is over the bound, and its data was given", refs[i].Path)
		case int64(len(want)) <= bound && (data == nil || string(data) != want):
			t.Errorf("%s: %d bytes that differ from the file's %d", refs[i].Path, len(data), len(want))
		}
		seen[i] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(refs) {
		t.Errorf("%d of %d refs given", len(seen), len(refs))
	}
}
