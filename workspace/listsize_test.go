package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// TestPackSizesMatchObjectStore reads the size of every object of the
// packs with the sizeReader, from the pack mapped and from windows read
// (what platforms that cannot map files do), and checks it against
// go-git's answer.
func TestPackSizesMatchObjectStore(t *testing.T) {
	for _, tc := range []struct{ refDeltas, mapped bool }{{false, true}, {true, true}, {false, false}, {true, false}} {
		refDeltas := tc.refDeltas
		t.Run(fmt.Sprintf("refDeltas=%v,mapped=%v", refDeltas, tc.mapped), func(t *testing.T) {
			repo := packedRepo(t, refDeltas)
			reg := openOne(t, repo.Dir, nil)
			s := snapshot(t, reg, "HEAD")
			var loose []plumbing.Hash
			for _, p := range []string{"dir0/file0.txt", "loose.txt"} {
				e, err := s.Stat(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				loose = append(loose, plumbing.NewHash(e.SHA))
			}
			r := reg.workspaces["ws"].repo
			r.mu.Lock()
			defer r.mu.Unlock()
			var x packIndexes
			sr := x.open(r)
			defer sr.close()
			if len(sr.packs) != 1 {
				t.Fatalf("%d packs open, want 1", len(sr.packs))
			}
			if p := &sr.packs[0]; !tc.mapped && p.mapped != nil {
				p.unmap()
				p.mapped, p.unmap = nil, nil
			} else if tc.mapped && p.mapped == nil {
				t.Skip("this platform does not map packs")
			}
			deltas := 0
			index := sr.packs[0].index
			for i := range index.count {
				var h plumbing.Hash
				copy(h[:], index.data[idxFanout+20*i:])
				got, ok := sr.size(h)
				want, err := r.storage.EncodedObjectSize(h)
				if !ok || err != nil || got != want {
					t.Errorf("%s: size %d (%v), object store %d (%v)", h, got, ok, want, err)
				}
				off, _ := index.offset(h)
				var b [1]byte
				sr.packs[0].file.ReadAt(b[:], off)
				if typ := b[0] >> 4 & 7; typ == packOFSDelta && !refDeltas || typ == packREFDelta && refDeltas {
					deltas++
				}
			}
			if deltas == 0 {
				t.Errorf("the pack holds no deltas of the kind wanted: the test does not test them")
			}
			for _, h := range loose {
				if _, ok := sr.size(h); ok {
					t.Errorf("%s: the packs answered for a loose object", h)
				}
			}
		})
	}
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

// TestPackedSizeMatchesObjectStore: the size a Stat reads from the mapped
// packs' entry headers is go-git's, for every object of the pack, whole or
// a delta; a loose object is left to go-git.
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
			index := packs[0].index
			for i := range index.count {
				var h plumbing.Hash
				copy(h[:], index.data[idxFanout+20*i:])
				got, ok := r.packedSizeLocked(h)
				want, err := r.storage.EncodedObjectSize(h)
				if !ok || err != nil || got != want {
					t.Errorf("%s: size %d (%v), object store %d (%v)", h, got, ok, want, err)
				}
			}
			if _, ok := r.packedSizeLocked(plumbing.NewHash(loose.SHA)); ok {
				t.Errorf("the mapped packs answered for a loose object")
			}
		})
	}
}
