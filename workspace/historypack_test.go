package workspace

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestPackReader reads every object of packs git wrote, with offset deltas
// and with reference deltas, through the mapped packs and through go-git:
// the bytes and types must agree, and every object must come from the
// mapped packs (none left to the fallback).
func TestPackReader(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("packs are not mapped on Windows: go-git reads every object")
	}
	repo := gitfixture.New(t)
	var body strings.Builder
	for i := range 40 {
		fmt.Fprintf(&body, "line %d of a file that grows, so that git stores it as deltas\n", i)
		repo.Commit(t, fmt.Sprintf("step %d", i), map[string]gitfixture.File{
			"grow.txt":       gitfixture.Text(body.String()),
			"dir/sub/f.go":   gitfixture.Text(fmt.Sprintf("package sub\n\nconst N = %d\n", i)),
			"dir/other.txt":  gitfixture.Text(strings.Repeat("x", i*100)),
			"dir/stable.txt": gitfixture.Text("unchanged\n"),
		})
	}
	for _, tc := range []struct {
		name      string
		repack    []string
		deltaType plumbing.ObjectType
	}{
		{"offset deltas", []string{"repack", "-adf", "-q"}, plumbing.OFSDeltaObject},
		{"reference deltas", []string{"-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "-q"}, plumbing.REFDeltaObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gitfixture.Git(t, repo.Dir, tc.repack...)
			comparePacks(t, openOne(t, repo.Dir, nil), 1, tc.deltaType)
		})
	}
}

// comparePacks reads every step-th object of the workspace's packs both
// ways, and checks that some were stored as deltas of deltaType.
func comparePacks(t *testing.T, reg *Registry, step int, deltaType plumbing.ObjectType) {
	t.Helper()
	r := snapshot(t, reg, "HEAD").Workspace().repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr := r.openPackReaderLocked()
	defer pr.close()
	if len(pr.packs) == 0 {
		t.Fatal("no pack was mapped")
	}
	objects, deltas := 0, 0
	for _, p := range pr.packs {
		x := p.index
		for i := 0; i < x.count; i += step {
			var h plumbing.Hash
			copy(h[:], x.data[idxFanout+20*i:])
			off, _ := x.offset(h)
			if typ, _, _, err := entryHeader(p.pack, off); err == nil && typ == deltaType {
				deltas++
			}
			typ, data, err := pr.read(h, 1<<40)
			if err != nil {
				t.Fatalf("object %s: %v", h, err)
			}
			obj, err := r.storage.EncodedObject(plumbing.AnyObject, h)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := obj.Reader()
			if err != nil {
				t.Fatal(err)
			}
			want, err := io.ReadAll(rd)
			rd.Close()
			if err != nil {
				t.Fatal(err)
			}
			if typ != obj.Type() || string(data) != string(want) {
				t.Fatalf("object %s: mapped read gives %s of %d bytes, go-git %s of %d", h, typ, len(data), obj.Type(), len(want))
			}
			if got := plumbing.ComputeHash(typ, data); got != h {
				t.Fatalf("object %s: the mapped read hashes to %s", h, got)
			}
			objects++
		}
	}
	if deltas == 0 {
		t.Errorf("none of %d objects was a %s: the test reads no delta", objects, deltaType)
	}
	t.Logf("%d objects read, %d of them %ss", objects, deltas, deltaType)
}

// TestPackReaderCorpus reads one in 31 of the go-git corpus's objects both
// ways.
func TestPackReaderCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads thousands of objects of the go-git corpus")
	}
	comparePacks(t, openOne(t, goGitCorpus(t), nil), 31, plumbing.OFSDeltaObject)
}
