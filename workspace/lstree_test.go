package workspace

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestWalkMatchesLsTree compares a full walk, sizes included, with git
// ls-tree -r -t -l on a real tree (GOROOT's net/http, testdata and all).
func TestWalkMatchesLsTree(t *testing.T) {
	if testing.Short() {
		t.Skip("copies part of GOROOT")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("go env GOROOT:", err)
	}
	dir := filepath.Join(t.TempDir(), "http")
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http")
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		t.Skipf("copying %s: %v %s", src, err, out)
	}
	gitfixture.Git(t, dir, "init", "-q", "-b", "main")
	gitfixture.Git(t, dir, "add", "-A")
	gitfixture.Git(t, dir, "commit", "-q", "-m", "net/http")
	gitfixture.Git(t, dir, "gc", "-q")

	reg := openOne(t, dir, nil)
	deny := reg.workspaces["ws"].deny
	var want []string
	for rec := range strings.SplitSeq(gitfixture.Git(t, dir, "ls-tree", "-r", "-t", "-l", "-z", "HEAD"), "\x00") {
		if rec == "" {
			continue
		}
		meta, p, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta) // mode type sha size
		if _, denied := deny.match(p); denied {
			continue
		}
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		want = append(want, strings.Join([]string{p, strconv.FormatUint(mode, 8), f[2], f[3]}, " "))
	}
	var got []string
	s := snapshot(t, reg, "HEAD")
	_, err = s.Walk(context.Background(), "", WalkOptions{Recursive: true, Sizes: true}, func(e Entry) error {
		size := "-"
		if e.Type == TypeFile || e.Type == TypeSymlink {
			size = strconv.FormatInt(e.Size, 10)
		}
		got = append(got, strings.Join([]string{e.Path, strconv.FormatUint(uint64(e.Mode), 8), e.SHA, size}, " "))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("walk has %d entries, ls-tree %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entry %d: got %q, want %q", i, got[i], want[i])
		}
	}
}
