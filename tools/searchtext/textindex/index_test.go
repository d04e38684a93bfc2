package textindex

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"
)

// readEach is a Source that reads each blob with read, on three
// goroutines.
func readEach(read func(context.Context, Blob) ([]byte, error)) Source {
	return func(ctx context.Context, blobs []Blob, fn func(int, []byte) error) error {
		g, ctx := errgroup.WithContext(ctx)
		g.SetLimit(3)
		for i, b := range blobs {
			g.Go(func() error {
				data, err := read(ctx, b)
				if err != nil {
					return err
				}
				return fn(i, data)
			})
		}
		return g.Wait()
	}
}

// corpus returns n generated text blobs, keyed by their SHA-1, and a
// source of them.
func corpus(n int) ([]Blob, map[Blob][]byte, Source) {
	words := []string{"alpha", "beta", "gamma", "Delta", "epsilon", "zeta", "eta", "théta", "ιota", "kappa", "func", "return", "nil", "err"}
	data := make(map[Blob][]byte)
	var blobs []Blob
	for i := range n {
		var b strings.Builder
		for j := range 40 {
			fmt.Fprintf(&b, "%s %s%d", words[(i*7+j)%len(words)], words[(i+j*3)%len(words)], (i*j)%97)
			if j%5 == 4 {
				b.WriteString("\n")
			}
		}
		if i%50 == 7 {
			b.WriteString("an invalid byte \xff, which Go's regexp reads as U+FFFD\n")
		}
		content := []byte(b.String())
		blob := Blob(sha1.Sum(content))
		data[blob] = content
		blobs = append(blobs, blob)
	}
	return blobs, data, readEach(func(_ context.Context, b Blob) ([]byte, error) {
		d, ok := data[b]
		if !ok {
			return nil, fmt.Errorf("no blob %s", b)
		}
		return d, nil
	})
}

func plan(t *testing.T, expr string) (Plan, *regexp.Regexp) {
	t.Helper()
	re, err := syntax.Parse(expr, syntax.Perl&^(syntax.OneLine|syntax.ClassNL))
	if err != nil {
		t.Fatal(err)
	}
	return NewPlan(re), regexp.MustCompile("(?m)" + expr)
}

func TestCandidatesHoldEveryMatch(t *testing.T) {
	blobs, data, read := corpus(300)
	ix, err := Open(Options{Dir: t.TempDir(), MaxPostings: 2000, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := ix.Build(context.Background(), blobs, read, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Blobs != 300 || stats.Shards < 3 {
		t.Errorf("build: %+v; a small posting bound must give several shards", stats)
	}
	for _, expr := range []string{"alpha", "Delta\\d+", "(?i)delta", "théta|ιota", "ka+ppa", "func [a-z]+9", "zzz", "^err", "nil$", "e.a", `\w+`, "\ufffd", "é|\ufffd", "[\ufffd-\uffff]"} {
		p, re := plan(t, expr)
		cands := ix.Candidates(p, blobs)
		matched, candidates := 0, 0
		for i, b := range blobs {
			m := re.Match(data[b])
			if m && !cands[i] {
				t.Errorf("%s: blob %d matches but is no candidate", expr, i)
			}
			if m {
				matched++
			}
			if cands[i] {
				candidates++
			}
		}
		if expr == "zzz" && candidates != 0 {
			t.Errorf("zzz: %d candidates", candidates)
		}
		t.Logf("%-12s plan %-40.40s matched %3d, candidates %3d", expr, p, matched, candidates)
	}
}

func TestBinaryAndUnknown(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, bin, unknown := Blob{1}, Blob{2}, Blob{3}
	read := readEach(func(_ context.Context, b Blob) ([]byte, error) {
		if b == bin {
			return []byte("abc\x00def"), nil
		}
		return []byte("abcdef"), nil
	})
	if _, err := ix.Build(context.Background(), []Blob{text, bin}, read, nil); err != nil {
		t.Fatal(err)
	}
	got := ix.Lookup([]Blob{text, bin, unknown})
	if got[0] != Text || got[1] != Binary || got[2] != Unknown {
		t.Errorf("statuses %v", got)
	}
	p, _ := plan(t, "abc")
	if c := ix.Candidates(p, []Blob{text, bin, unknown}); !c[0] || c[1] || !c[2] {
		t.Errorf("candidates %v: text yes, binary no, unknown yes (must be scanned)", c)
	}
}

func TestCorruptShardIsDropped(t *testing.T) {
	dir := t.TempDir()
	blobs, _, read := corpus(20)
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(context.Background(), blobs, read, nil); err != nil {
		t.Fatal(err)
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "*"+shardExt))
	if len(shards) != 1 {
		t.Fatalf("shards %v", shards)
	}
	for name, damage := range map[string]func([]byte) []byte{
		"flipped byte": func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
		"truncated":    func(b []byte) []byte { return b[:len(b)/2] },
		"empty":        func([]byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(shards[0])
			if err != nil {
				// The previous case removed it: write it again.
				fresh, _ := Open(Options{})
				fresh.Build(context.Background(), blobs, read, nil)
				data = encodeAgain(t, fresh)
			}
			os.WriteFile(shards[0], damage(data), 0o644)
			again, err := Open(Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if st := again.Lookup(blobs[:1]); st[0] != Unknown {
				t.Errorf("a damaged shard was used: %v", st)
			}
			if _, err := os.Stat(shards[0]); !os.IsNotExist(err) {
				t.Errorf("the damaged shard is still there: %v", err)
			}
		})
	}
}

// encodeAgain returns the bytes of an in-memory index's only shard.
func encodeAgain(t *testing.T, ix *Index) []byte {
	t.Helper()
	if len(ix.shards) != 1 {
		t.Fatalf("%d shards", len(ix.shards))
	}
	s := ix.shards[0]
	return binary.LittleEndian.AppendUint32(append([]byte(nil), s.data...), crc32.Checksum(s.data, castagnoli()))
}

// TestSharedDirectory runs builds of overlapping blob sets in several
// indexes (processes, replicas) on one directory at once: every index
// ends up knowing every blob, and a new one loads them all.
func TestSharedDirectory(t *testing.T) {
	dir := t.TempDir()
	blobs, data, read := corpus(200)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			ix, err := Open(Options{Dir: dir, MaxPostings: 3000})
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := ix.Build(context.Background(), blobs[i*30:i*30+80], read, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range ix.Lookup(blobs[:170]) {
		if st != Text {
			t.Fatalf("blob %d: status %v after the shared builds", i, st)
		}
	}
	p, re := plan(t, "gamma1")
	for i, c := range ix.Candidates(p, blobs[:170]) {
		if re.Match(data[blobs[i]]) && !c {
			t.Errorf("blob %d matches, no candidate", i)
		}
	}
	tmp, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

func TestBuildStopsOnReadError(t *testing.T) {
	blobs, _, read := corpus(50)
	ix, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	failing := func(ctx context.Context, todo []Blob, fn func(int, []byte) error) error {
		return read(ctx, todo, func(i int, data []byte) error {
			if todo[i] == blobs[25] {
				return fmt.Errorf("disk on fire")
			}
			return fn(i, data)
		})
	}
	if _, err := ix.Build(context.Background(), blobs, failing, nil); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("build error %v", err)
	}
	if st := ix.Lookup(blobs[25:26]); st[0] != Unknown {
		t.Errorf("an unread blob is known: %v", st)
	}
	// A later build completes what is missing.
	if _, err := ix.Build(context.Background(), blobs, read, nil); err != nil {
		t.Fatal(err)
	}
	for i, st := range ix.Lookup(blobs) {
		if st != Text {
			t.Errorf("blob %d: %v", i, st)
		}
	}
}

func TestTrigramsSkipNewlines(t *testing.T) {
	got := appendTrigrams(nil, []byte("abcd\nab\nxyzxyz"), newSeenSet())
	var s []string
	for _, tri := range got {
		s = append(s, string([]byte{byte(tri >> 16), byte(tri >> 8), byte(tri)}))
	}
	if strings.Join(s, ",") != "abc,bcd,xyz,yzx,zxy" {
		t.Errorf("trigrams %q", s)
	}
}
