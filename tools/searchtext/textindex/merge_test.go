package textindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// shardFiles returns the shard files in dir.
func shardFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"+shardExt))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// checkAll fails unless ix knows every blob as text and its candidates
// hold every match.
func checkAll(t *testing.T, ix *Index, blobs []Blob, data map[Blob][]byte) {
	t.Helper()
	for i, st := range ix.Lookup(blobs) {
		if st != Text {
			t.Fatalf("blob %d: status %v", i, st)
		}
	}
	for _, expr := range []string{"gamma1", "théta|ιota", "Delta\\d+"} {
		p, re := plan(t, expr)
		for i, c := range ix.Candidates(p, blobs) {
			if re.Match(data[blobs[i]]) && !c {
				t.Fatalf("%s: blob %d matches, no candidate", expr, i)
			}
		}
	}
}

// TestMergeBoundsShards builds one shard per build, ten times, with a
// bound of four: builds merge the smallest, and the directory holds what
// memory holds.
func TestMergeBoundsShards(t *testing.T) {
	dir := t.TempDir()
	blobs, data, src := corpus(200)
	ix, err := Open(Options{Dir: dir, MaxShards: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := ix.Build(context.Background(), blobs[i*20:i*20+20], src, nil); err != nil {
			t.Fatal(err)
		}
		if n := ix.Stats().Shards; n > 4 {
			t.Fatalf("build %d leaves %d shards, more than the bound", i, n)
		}
		if files := shardFiles(t, dir); len(files) != ix.Stats().Shards {
			t.Fatalf("build %d: %d shard files, %d shards in memory", i, len(files), ix.Stats().Shards)
		}
	}
	checkAll(t, ix, blobs, data)
	again, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	checkAll(t, again, blobs, data)
}

// TestMergeUnderReaders merges while another index (a process or replica)
// has the sources loaded, then puts a source back as a merge that crashed
// before removing it would leave it: every index keeps answering every
// blob.
func TestMergeUnderReaders(t *testing.T) {
	dir := t.TempDir()
	blobs, data, src := corpus(120)
	ctx := context.Background()
	a, err := Open(Options{Dir: dir, MaxShards: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if _, err := a.Build(ctx, blobs[i*20:i*20+20], src, nil); err != nil {
			t.Fatal(err)
		}
	}
	before := shardFiles(t, dir)
	saved, err := os.ReadFile(before[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	a.opts.MaxShards = 2
	if n, err := a.Merge(); err != nil || n < 2 {
		t.Fatalf("merge: %d shards, %v", n, err)
	}
	if len(shardFiles(t, dir)) >= len(before) {
		t.Errorf("merged sources left in place: %d files, %d before", len(shardFiles(t, dir)), len(before))
	}
	checkAll(t, a, blobs, data)
	checkAll(t, b, blobs, data) // its sources are gone from disk, not from its memory
	if err := b.Refresh(); err != nil {
		t.Fatal(err)
	}
	checkAll(t, b, blobs, data)
	// A crash between writing the merged shard and removing its sources.
	if err := os.WriteFile(before[0], saved, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(Options{Dir: dir, MaxShards: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkAll(t, c, blobs, data)
	if _, err := c.Merge(); err != nil {
		t.Fatal(err)
	}
	checkAll(t, c, blobs, data)
	if files := shardFiles(t, dir); len(files) != c.Stats().Shards {
		t.Errorf("after folding the leftover in: %d files, %d shards", len(files), c.Stats().Shards)
	}
}
