package workspace

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// packedRepo builds a repository whose pack holds blobs whole and as
// deltas (OFS, or REF when refDeltas is set), of several sizes,
// then adds loose objects that no pack holds.
func packedRepo(t *testing.T, refDeltas bool) *gitfixture.Repo {
	t.Helper()
	repo := gitfixture.New(t)
	base := strings.Repeat("line of text that repeats\n", 400)
	var files map[string]gitfixture.File
	for i := range 4 {
		files = map[string]gitfixture.File{}
		for j := range 12 {
			files[fmt.Sprintf("dir%d/file%d.txt", j%3, j)] = gitfixture.Text(base[:len(base)*(j+1)/12] + strings.Repeat("x", i+j))
		}
		files["big.txt"] = gitfixture.Text(strings.Repeat(base, 40) + fmt.Sprint(i)) // over 128 KiB: a size of several varint bytes
		files["empty.txt"] = gitfixture.Text("")
		files["link"] = gitfixture.Link("big.txt")
		repo.Commit(t, fmt.Sprint("commit ", i), files)
	}
	args := []string{"repack", "-a", "-d", "-f", "--depth=50", "--window=50"}
	if refDeltas {
		gitfixture.Git(t, repo.Dir, "config", "repack.usedeltabaseoffset", "false")
	}
	gitfixture.Git(t, repo.Dir, args...)
	files["dir0/file0.txt"] = gitfixture.Text("a loose blob\n")
	files["loose.txt"] = gitfixture.Text(base + "loose\n")
	repo.Commit(t, "loose", files)
	return repo
}

// TestColdListingSizes lists a fresh registry (nothing cached) with sizes
// and compares every file's size with what Stat reads from the object
// store: packed whole, packed as deltas, loose.
func TestColdListingSizes(t *testing.T) {
	repo := packedRepo(t, false)
	ctx := context.Background()
	for _, rev := range []string{"HEAD", "HEAD~1", "HEAD~4"} {
		s := snapshot(t, openOne(t, repo.Dir, nil), rev)
		files := 0
		_, err := s.Walk(ctx, "", WalkOptions{Recursive: true, Sizes: true}, func(e Entry) error {
			if e.Type != TypeFile && e.Type != TypeSymlink {
				return nil
			}
			files++
			want, err := s.src.(*commitSource).ws.repo.blobSize(plumbing.NewHash(e.SHA))
			if err != nil || e.Size != want {
				t.Errorf("%s %s: size %d, object store %d (%v)", rev, e.Path, e.Size, want, err)
			}
			return nil
		})
		if err != nil || files < 14 {
			t.Fatalf("%s: %d files, %v", rev, files, err)
		}
	}
}

// TestPackIndexRefusesMalformed: an .idx that is not what it says leaves
// the sizes to go-git rather than misread them.
func TestPackIndexRefusesMalformed(t *testing.T) {
	repo := packedRepo(t, false)
	matches, _ := filepath.Glob(filepath.Join(repo.Dir, ".git", "objects", "pack", "*.idx"))
	if len(matches) != 1 {
		t.Fatalf("%d pack indexes", len(matches))
	}
	good, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parsePackIndex(good); err != nil {
		t.Fatalf("a real index: %v", err)
	}
	descending := append([]byte(nil), good...)
	descending[idxHeader+3] = 0xff // fanout[0] above fanout[1]
	for name, data := range map[string][]byte{
		"empty":      nil,
		"version 1":  good[idxHeader:],
		"truncated":  good[:len(good)/2],
		"descending": descending,
	} {
		if _, err := parsePackIndex(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestUvarint decodes the sizes of pack headers and deltas.
func TestUvarint(t *testing.T) {
	for _, tc := range []struct {
		b         []byte
		first     byte
		firstBits uint
		v         uint64
		n         int
		ok        bool
	}{
		{[]byte{0x05}, 0, 0, 5, 1, true},
		{[]byte{0x80 | 0x05, 0x01}, 0, 0, 5 | 1<<7, 2, true},
		{[]byte{0x80}, 0, 0, 0, 0, false},
		{nil, 0, 0, 0, 0, false},
		{[]byte{0x3a}, 0xa, 4, 0xa, 1, true},              // a blob of 10 bytes
		{[]byte{0xba, 0x02}, 0xa, 4, 0xa | 2<<4, 2, true}, // 42 bytes
		{[]byte{0xba, 0x82, 0x01}, 0xa, 4, 0xa | 2<<4 | 1<<11, 3, true},
		{[]byte{0xba}, 0xa, 4, 0, 0, false},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, 0, 0, 0, false}, // overflows
	} {
		v, n, ok := uvarint(tc.b, tc.first, tc.firstBits)
		if v != tc.v || n != tc.n || ok != tc.ok {
			t.Errorf("uvarint(%x, %x, %d) = %d, %d, %v; want %d, %d, %v", tc.b, tc.first, tc.firstBits, v, n, ok, tc.v, tc.n, tc.ok)
		}
	}
}

// TestPackedSizeMatchesObjectStore: the size listings and Stat read from
// the mapped packs' entry headers is go-git's, for every object of the
// pack, whole or a delta (OFS or REF); a loose object is left to go-git.
func TestPackedSizeMatchesObjectStore(t *testing.T) {
	for _, refDeltas := range []bool{false, true} {
		t.Run(fmt.Sprintf("refDeltas=%v", refDeltas), func(t *testing.T) {
			repo := packedRepo(t, refDeltas)
			reg := openOne(t, repo.Dir, nil)
			s := snapshot(t, reg, "HEAD")
			loose, err := s.Stat(context.Background(), "loose.txt")
			if err != nil {
				t.Fatal(err)
			}
			r := reg.workspaces["ws"].repo
			r.mu.Lock()
			defer r.mu.Unlock()
			packs := r.packsLocked().packs
			if len(packs) != 1 {
				t.Skipf("%d packs mapped: this platform does not map packs", len(packs))
			}
			if packs[0].file == nil {
				t.Fatal("the pack was mapped but not opened")
			}
			index, deltas := packs[0].index, 0
			wantDelta := plumbing.OFSDeltaObject
			if refDeltas {
				wantDelta = plumbing.REFDeltaObject
			}
			// Sizes are read from the file in windows, and from the
			// mapping where the file cannot be read.
			for _, from := range []string{"file", "mapping"} {
				if from == "mapping" {
					packs[0].file.Close()
					packs[0].file, r.packsLocked().headers = nil, headerWindow{}
				}
				for i := range index.count {
					var h plumbing.Hash
					copy(h[:], index.data[idxFanout+20*i:])
					got, ok := r.packedSizeLocked(h)
					want, err := r.storage.EncodedObjectSize(h)
					if !ok || err != nil || got != want {
						t.Errorf("from the %s, %s: size %d (%v), object store %d (%v)", from, h, got, ok, want, err)
					}
					off, _ := index.offset(h)
					if typ, _, _, _ := entryHeader(packs[0].pack, off); typ == wantDelta {
						deltas++
					}
				}
			}
			if deltas == 0 {
				t.Errorf("the pack holds no %s entries: the test does not test them", wantDelta)
			}
			if _, ok := r.packedSizeLocked(plumbing.NewHash(loose.SHA)); ok {
				t.Errorf("the mapped packs answered for a loose object")
			}
		})
	}
}

// TestListingMapsNewPacks: a walk maps the packs written since the
// repository's were mapped (here by a commit and a repack, as a fetch
// would bring them), so that their sizes come from the packs too; sizes
// read from two packs and loose objects are git's.
func TestListingMapsNewPacks(t *testing.T) {
	repo := packedRepo(t, false)
	reg := openOne(t, repo.Dir, nil)
	ctx := context.Background()
	// walk lists HEAD with sizes, and compares them with git's.
	walk := func() {
		t.Helper()
		want := map[string]string{}
		for line := range strings.Lines(gitfixture.Git(t, repo.Dir, "ls-tree", "-r", "-l", "HEAD")) {
			meta, p, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
			if f := strings.Fields(meta); f[1] == "blob" && f[0] != "120000" {
				want[p] = f[3]
			}
		}
		files := 0
		_, err := snapshot(t, reg, "HEAD").Walk(ctx, "", WalkOptions{Recursive: true, Sizes: true}, func(e Entry) error {
			if e.Type == TypeFile {
				files++
				if got := fmt.Sprint(e.Size); got != want[e.Path] {
					t.Errorf("%s: size %s, git ls-tree -l says %s", e.Path, got, want[e.Path])
				}
			}
			return nil
		})
		if err != nil || files != len(want) {
			t.Fatalf("%d files listed, git lists %d (%v)", files, len(want), err)
		}
	}
	r := reg.workspaces["ws"].repo
	mapped := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.packsLocked().packs)
	}
	walk()
	if n := mapped(); n != 1 {
		t.Skipf("%d packs mapped: this platform does not map packs", n)
	}
	repo.Commit(t, "new", map[string]gitfixture.File{"new.txt": gitfixture.Text(strings.Repeat("new text\n", 100))})
	gitfixture.Git(t, repo.Dir, "repack", "-d")
	walk()
	if n := mapped(); n != 2 {
		t.Fatalf("%d packs mapped after a walk of the new commit, want 2", n)
	}
	e, err := snapshot(t, reg, "HEAD").Stat(ctx, "new.txt")
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if size, ok := r.packedSizeLocked(plumbing.NewHash(e.SHA)); !ok || size != 900 {
		t.Errorf("new.txt: packed size %d (%v), want 900", size, ok)
	}
}

// TestPackIndexFindsNamesSharingPrefixes looks up names in an index whose
// names share their first bytes (eight, nine, nineteen), and names it
// does not hold that fall between them.
func TestPackIndexFindsNamesSharingPrefixes(t *testing.T) {
	var names []plumbing.Hash
	for _, shared := range []int{0, 8, 9, 19} {
		for k := range 3 {
			var h plumbing.Hash
			h[0] = byte(0x40 + shared)
			for i := 1; i < shared; i++ {
				h[i] = 0x77
			}
			for i := shared; i < len(h); i++ {
				h[i] = byte(2 * (k + 1)) // even: an odd byte makes a name between
			}
			names = append(names, h)
		}
	}
	slices.SortFunc(names, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	data := []byte("\xfftOc\x00\x00\x00\x02")
	for b := range 256 {
		n := 0
		for _, h := range names {
			if int(h[0]) <= b {
				n++
			}
		}
		data = binary.BigEndian.AppendUint32(data, uint32(n))
	}
	for _, h := range names {
		data = append(data, h[:]...)
	}
	data = append(data, make([]byte, 4*len(names))...) // CRCs
	for i := range names {
		data = binary.BigEndian.AppendUint32(data, uint32(100+i))
	}
	x, err := parsePackIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range names {
		if off, ok := x.offset(h); !ok || off != int64(100+i) {
			t.Errorf("offset(%s) = %d, %v; want %d", h, off, ok, 100+i)
		}
		for _, at := range []int{8, 9, 19} {
			missing := h
			missing[at]++ // odd: between two names, or past the last
			if off, ok := x.offset(missing); ok {
				t.Errorf("offset(%s) = %d for a name the index does not hold", missing, off)
			}
		}
	}
}
