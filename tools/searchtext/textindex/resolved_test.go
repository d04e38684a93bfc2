package textindex

import (
	"context"
	"slices"
	"testing"
)

// TestResolvedCandidates asks for the candidates of one list before and
// after the index grows and merges: a resolution is reused while the
// index stays as it was, and made again (with the answers Candidates
// gives) once it changed.
func TestResolvedCandidates(t *testing.T) {
	blobs, data, read := corpus(150)
	ix, err := Open(Options{Dir: t.TempDir(), MaxPostings: 2000, MaxShards: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(context.Background(), blobs[:100], read, nil); err != nil {
		t.Fatal(err)
	}
	p, re := plan(t, "Delta\\d+")
	check := func(when string, got []bool) {
		t.Helper()
		if want := ix.Candidates(p, blobs); !slices.Equal(got, want) {
			t.Errorf("%s: candidates differ from Candidates'", when)
		}
		for i, b := range blobs {
			if re.Match(data[b]) && !got[i] {
				t.Errorf("%s: blob %d matches but is no candidate", when, i)
			}
		}
	}
	first, r := ix.ResolvedCandidates(p, blobs, nil)
	check("first", first)
	for i := 100; i < 150; i++ {
		if !first[i] || r.Status()[i] != Unknown {
			t.Errorf("blob %d is not indexed yet, but is %v, status %v", i, first[i], r.Status()[i])
		}
	}
	if again, r2 := ix.ResolvedCandidates(p, blobs, r); r2 != r {
		t.Error("the index did not change, and the resolution was made again")
	} else {
		check("reused", again)
	}
	if _, err := ix.Build(context.Background(), blobs, read, nil); err != nil {
		t.Fatal(err)
	}
	after, r3 := ix.ResolvedCandidates(p, blobs, r)
	if r3 == r {
		t.Fatal("the index grew and merged, and the old resolution was used")
	}
	check("after the build", after)
	if st := r3.Status(); slices.Contains(st, Unknown) {
		t.Error("a blob is unknown after all were indexed")
	}
}
