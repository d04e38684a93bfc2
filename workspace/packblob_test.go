package workspace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// deepDeltaRepo builds a repository whose files change over many commits,
// repacked as git's aggressive gc does (long chains of deltas, a wide
// search for bases), with one blob too large for the mapped-pack path.
func deepDeltaRepo(t *testing.T) *gitfixture.Repo {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("packs are not mapped on Windows: go-git reads every blob")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the comparison needs it")
	}
	repo := gitfixture.New(t)
	var grow strings.Builder
	for i := range 60 {
		fmt.Fprintf(&grow, "line %d of a file that grows, so that git stores it as deltas\n", i)
		files := map[string]gitfixture.File{
			"grow.txt":      gitfixture.Text(grow.String()),
			"dir/f.go":      gitfixture.Text(fmt.Sprintf("package dir\n\nconst N = %d\n\n%s", i, strings.Repeat("// filler line\n", 50))),
			"dir/other.txt": gitfixture.Text(strings.Repeat(fmt.Sprintf("row %d\n", i%7), 200+i)),
		}
		if i == 59 {
			files["large.bin"] = gitfixture.Text(strings.Repeat("0123456789abcdef", maxPackedBlob/16+1))
		}
		repo.Commit(t, fmt.Sprintf("step %d", i), files)
	}
	gitfixture.Git(t, repo.Dir, "repack", "-adf", "-q", "--depth=50", "--window=250")
	return repo
}

// gitBlobs returns every blob of the repository at dir, as git cat-file
// reads them.
func gitBlobs(t *testing.T, dir string) map[plumbing.Hash][]byte {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	blobs := make(map[plumbing.Hash][]byte)
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		header, err := rd.ReadString('\n')
		if err == io.EOF {
			return blobs
		}
		fields := strings.Fields(header)
		if err != nil || len(fields) != 3 {
			t.Fatalf("git cat-file: header %q: %v", header, err)
		}
		size, _ := strconv.Atoi(fields[2])
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(rd, data); err != nil {
			t.Fatal(err)
		}
		if fields[1] == "blob" {
			blobs[plumbing.NewHash(fields[0])] = data[:size]
		}
	}
}

// TestReadPackedBlob reads every blob of a deeply deltified pack from the
// mapped packs and compares it with git cat-file's; the one blob over
// maxPackedBlob is left to go-git, and so are objects the packs lack.
func TestReadPackedBlob(t *testing.T) {
	repo := deepDeltaRepo(t)
	want := gitBlobs(t, repo.Dir)
	r := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Workspace().repo
	packed, deltas, large := 0, 0, 0
	for h, data := range want {
		got, found, err := r.readPackedBlob(h)
		switch {
		case err != nil:
			t.Fatalf("blob %s: %v", h, err)
		case len(data) > maxPackedBlob:
			large++
			if found {
				t.Errorf("blob %s of %d bytes was read from the packs", h, len(data))
			}
			continue
		case !found:
			t.Fatalf("blob %s of %d bytes is not found in the packs", h, len(data))
		case !bytes.Equal(got, data):
			t.Fatalf("blob %s: %d bytes read, git cat-file gives %d (or other bytes)", h, len(got), len(data))
		}
		packed++
		if isDelta(r, h) {
			deltas++
		}
	}
	if _, found, err := r.readPackedBlob(plumbing.NewHash(strings.Repeat("ab", 20))); found || err != nil {
		t.Errorf("a blob the packs lack: found %v, error %v", found, err)
	}
	if deltas < packed/2 || large != 1 {
		t.Errorf("%d blobs read, %d of them deltas, %d large: the repository does not test what it should", packed, deltas, large)
	}
	t.Logf("%d blobs read from the packs, %d of them deltas", packed, deltas)

	// The read path takes them from the mappings: with the pack files
	// gone (as after a repack), go-git could not read them.
	packs, _ := filepath.Glob(filepath.Join(repo.Dir, ".git", "objects", "pack", "pack-*"))
	for _, p := range packs {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	for h, data := range want {
		if len(data) > maxPackedBlob {
			continue
		}
		if got, _, err := r.readBlob(h, 0, 1<<30, false); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("blob %s after its pack was deleted: %d bytes, error %v", h, len(got), err)
		}
	}
}

// isDelta reports whether blob h is stored as a delta.
func isDelta(r *repo, h plumbing.Hash) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	pr := r.packsLocked()
	i, off, ok := pr.locate(h)
	if !ok {
		return false
	}
	typ, _, _, err := entryHeader(pr.packs[i].pack, off)
	return err == nil && (typ == plumbing.OFSDeltaObject || typ == plumbing.REFDeltaObject)
}

// TestReadPackedBlobDamaged damages a copy of the pack (cut short, or
// single bits flipped across it) and reads every blob through the read
// path: each read gives the blob's own bytes or an error, never other
// bytes, and never panics.
func TestReadPackedBlobDamaged(t *testing.T) {
	repo := deepDeltaRepo(t)
	want := gitBlobs(t, repo.Dir)
	packs, err := filepath.Glob(filepath.Join(repo.Dir, ".git", "objects", "pack", "*.pack"))
	if err != nil || len(packs) != 1 {
		t.Fatalf("packs %v: %v", packs, err)
	}
	pristine, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	type damage struct {
		name string
		fn   func([]byte) []byte
	}
	cases := []damage{
		{"cut at half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"cut to the header", func(b []byte) []byte { return b[:12] }},
	}
	for _, f := range blobDamageSpots(t, repo.Dir, want) {
		cases = append(cases, damage{fmt.Sprintf("bit %#x of byte %d", f.bit, f.at), func(b []byte) []byte {
			b[f.at] ^= f.bit
			return b
		}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo")
			if out, err := exec.Command("cp", "-a", repo.Dir, dir).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
			pack := filepath.Join(dir, strings.TrimPrefix(packs[0], repo.Dir))
			if err := os.Chmod(pack, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(pack, tc.fn(bytes.Clone(pristine)), 0o644); err != nil {
				t.Fatal(err)
			}
			reg := openOne(t, dir, nil)
			r := reg.workspaces["ws"].repo
			failed := 0
			for h, data := range want {
				got, _, err := r.readBlob(h, 0, 1<<30, false)
				if err != nil {
					failed++
					continue
				}
				if !bytes.Equal(got, data) {
					t.Errorf("blob %s: %d bytes read that are not its %d", h, len(got), len(data))
				}
			}
			t.Logf("%d of %d blobs refused", failed, len(want))
		})
	}
}

// A bitFlip names a bit of a pack.
type bitFlip struct {
	at  int
	bit byte
}

// blobDamageSpots returns bits of the pack of the repository at dir within
// the entries of blobs, whole ones and deltas: in the first byte of an
// entry's header, a byte of its compressed data, and the last byte of the
// entry (its stream's checksum); and for a whole blob, a bit of its size
// set in the header, which makes it read as a shorter blob that inflates
// without error.
func blobDamageSpots(t *testing.T, dir string, blobs map[plumbing.Hash][]byte) []bitFlip {
	t.Helper()
	r := snapshot(t, openOne(t, dir, nil), "HEAD").Workspace().repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr := r.packsLocked()
	var offsets []int64
	for _, p := range pr.packs {
		for i := range p.index.count {
			var h plumbing.Hash
			copy(h[:], p.index.data[idxFanout+20*i:])
			off, _ := p.index.offset(h)
			offsets = append(offsets, off)
		}
	}
	slices.Sort(offsets)
	end := func(off int64) int64 { // where the entry at off ends
		i, _ := slices.BinarySearch(offsets, off)
		if i+1 < len(offsets) {
			return offsets[i+1]
		}
		return int64(len(pr.packs[0].pack)) - 20
	}
	var spots []bitFlip
	kinds := map[plumbing.ObjectType]int{}
	for _, h := range slices.SortedFunc(maps.Keys(blobs), func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) }) {
		_, off, ok := pr.locate(h)
		if !ok || len(blobs[h]) > maxPackedBlob {
			continue
		}
		typ, _, n, err := entryHeader(pr.packs[0].pack, off)
		if err != nil || kinds[typ] == 2 {
			continue
		}
		kinds[typ]++
		stop := end(off)
		for _, at := range []int{int(off), int(off) + n + int(stop-off-int64(n))/2, int(stop) - 1} {
			spots = append(spots, bitFlip{at, 0x01}, bitFlip{at, 0x80})
		}
		if low := pr.packs[0].pack[off] & 0xf; typ == plumbing.BlobObject && low != 0 {
			spots = append(spots, bitFlip{int(off), low & -low})
			kinds[-1]++
		}
	}
	if kinds[plumbing.BlobObject] == 0 || kinds[plumbing.OFSDeltaObject] == 0 || kinds[-1] == 0 {
		t.Fatalf("blob entries found: %v; the test needs whole ones and deltas", kinds)
	}
	return spots
}

// TestReadPackedBlobConcurrent reads every blob from several goroutines
// at once, each through a view of the packs of its own (run it with
// -race), then closes the repository.
func TestReadPackedBlobConcurrent(t *testing.T) {
	repo := deepDeltaRepo(t)
	want := gitBlobs(t, repo.Dir)
	reg := openOne(t, repo.Dir, nil)
	r := snapshot(t, reg, "HEAD").Workspace().repo
	var g errgroup.Group
	for range 6 {
		g.Go(func() error {
			for h, data := range want {
				got, _, err := r.readBlob(h, 0, 1<<30, false)
				if err != nil || !bytes.Equal(got, data) {
					return fmt.Errorf("blob %s: %d bytes, error %v", h, len(got), err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDeletedPacksUnmapped repacks a repository while it is open: the next
// walk maps the new pack and unmaps the one git deleted, and reads go on
// from the new one.
func TestDeletedPacksUnmapped(t *testing.T) {
	repo := deepDeltaRepo(t)
	reg := openOne(t, repo.Dir, nil)
	mapped := func() []string {
		s := snapshot(t, reg, "HEAD")
		if _, err := s.List(context.Background(), "", ListOptions{Recursive: true, Sizes: true}); err != nil {
			t.Fatal(err)
		}
		r := s.Workspace().repo
		r.mu.Lock()
		defer r.mu.Unlock()
		var names []string
		for _, p := range r.packsLocked().packs {
			names = append(names, p.name.String())
		}
		return names
	}
	before := mapped()
	repo.Commit(t, "after the first listing", map[string]gitfixture.File{"new.txt": gitfixture.Text("new\n")})
	gitfixture.Git(t, repo.Dir, "repack", "-adq")
	after := mapped()
	if len(before) != 1 || len(after) != 1 || before[0] == after[0] {
		t.Fatalf("packs mapped before the repack %v, after %v: want one each, not the same", before, after)
	}
	r := snapshot(t, reg, "HEAD").Workspace().repo
	for h, data := range gitBlobs(t, repo.Dir) {
		if got, _, err := r.readBlob(h, 0, 1<<30, false); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("blob %s after the repack: %d bytes, error %v", h, len(got), err)
		}
	}
}

// TestCommitsAfterRepacks: with the workspace open, each round commits and
// then repacks everything (git repack -a -d: the commit's objects move
// into a new pack, the old pack and the loose objects are deleted). go-git
// lists the packs once; from the third round on it found none of the new
// commits until it was made to list them again.
func TestCommitsAfterRepacks(t *testing.T) {
	repo := packedRepo(t, false)
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	for round := range 4 {
		name := fmt.Sprintf("r%d.txt", round)
		repo.Commit(t, fmt.Sprint("round ", round), map[string]gitfixture.File{name: gitfixture.Text(strings.Repeat(name, round+1))})
		gitfixture.Git(t, repo.Dir, "repack", "-a", "-d", "-q")
		s, err := reg.Snapshot(ctx, reader, "ws", "HEAD")
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		f, err := s.ReadFile(ctx, name, ReadOptions{})
		if err != nil || string(f.Data) != strings.Repeat(name, round+1) {
			t.Fatalf("round %d: %s = %q, %v", round, name, f.Data, err)
		}
		if held := heldDeletedPacks(t, repo.Dir); len(held) > 0 {
			t.Errorf("round %d: the repack's deleted packs are still open or mapped, their disk space held: %q", round, held)
		}
	}
}

// heldDeletedPacks lists the files of dir's pack directory that this
// process has open or mapped although they were deleted. Only Linux says
// (in /proc/self); elsewhere the test is skipped.
func heldDeletedPacks(t *testing.T, dir string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("open files are read from /proc/self")
	}
	packDir, err := filepath.EvalSymlinks(filepath.Join(dir, ".git", "objects", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, packDir+"/") && strings.HasSuffix(target, " (deleted)") {
			held = append(held, "fd "+target)
		}
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(maps)) {
		if i := strings.Index(line, packDir+"/"); i >= 0 && strings.HasSuffix(strings.TrimSpace(line), " (deleted)") {
			held = append(held, "mapped "+strings.TrimSpace(line[i:]))
		}
	}
	return held
}
