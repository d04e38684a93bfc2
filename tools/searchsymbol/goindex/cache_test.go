package goindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSecondRevisionReparsesChangedFiles(t *testing.T) {
	r, c1 := newFixtureRepo(t, "testdata/fixture.txtar")
	c2 := r.commit(t, map[string]string{
		"sub/reader.go":   "package sub\n\n// Reader reads.\ntype Reader struct{}\n\nfunc NewReader2() {}\n",
		"extra/extra.go":  "package extra\n\nfunc Extra() {}\n",
		"tagged/linux.go": "",
	}, "second")
	ix := NewIndexer(IndexerOptions{})
	ctx := context.Background()
	first, err := ix.Index(ctx, r.source(t, c1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := ix.Index(ctx, r.source(t, c2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := second.Facts(); f.Reparsed != 2 || f.Files != first.Facts().Files {
		t.Errorf("second revision: %+v; want 2 files parsed of %d", f, first.Facts().Files)
	}
	for _, tc := range []struct {
		idx   *Index
		query string
		total int
	}{
		{first, "NewReaderSize", 1}, {second, "NewReaderSize", 0},
		{first, "Extra", 0}, {second, "Extra", 1},
		{first, "OnLinux", 1}, {second, "OnLinux", 0},
		{second, "NewReader2", 1},
	} {
		res, err := tc.idx.Search(Query{Query: tc.query, Match: MatchExact})
		if err != nil || res.Total != tc.total {
			t.Errorf("%s at %s: total %v (err %v), want %d", tc.query, tc.idx.Revision(), res.Total, err, tc.total)
		}
	}
	// The first revision's index is still in memory.
	res, err := ix.Search(ctx, r.source(t, c1), Options{}, Query{Query: "Extra"})
	if err != nil || res.Facts.From != FromMemory {
		t.Errorf("first revision again: from %q, err %v; want memory", res.Facts.From, err)
	}
}

func TestDiskCache(t *testing.T) {
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	ctx := context.Background()
	dir := t.TempDir()
	search := func(t *testing.T, want From) *Result {
		t.Helper()
		ix := NewIndexer(IndexerOptions{CacheDir: dir}) // a new process, as far as caches go
		res, err := ix.Search(ctx, r.source(t, commit), Options{}, Query{Query: "NewReader"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Facts.From != want {
			t.Fatalf("index came from %q, want %q", res.Facts.From, want)
		}
		return res
	}
	built := search(t, FromBuild)
	loaded := search(t, FromDisk)
	if got, want := summary(loaded.Entries), summary(built.Entries); len(got) == 0 || len(got) != len(want) {
		t.Errorf("from disk %q, built %q", got, want)
	}

	// Loaded and built indexes are the same, down to every field.
	ix := NewIndexer(IndexerOptions{CacheDir: dir})
	fromDisk, _ := ix.Index(ctx, r.source(t, commit), Options{})
	fresh, _ := NewIndexer(IndexerOptions{}).Index(ctx, r.source(t, commit), Options{})
	if d := lineDiff(dump(fresh), dump(fromDisk)); d != "" {
		t.Errorf("index from disk differs:\n%s", d)
	}
	if d := lineDiff(dumpNames(fresh), dumpNames(fromDisk)); d != "" {
		t.Errorf("names from disk differ:\n%s", d)
	}
	if fromDisk.ID() != fresh.ID() {
		t.Errorf("index ids differ: %s vs %s", fromDisk.ID(), fresh.ID())
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.gix"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for name, corrupt := range map[string][]byte{
		"flipped byte":  flip(data, len(data)/2),
		"truncated":     data[:len(data)-5],
		"header only":   data[:headerSize],
		"empty":         {},
		"other version": flip(data, 4),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(files[0], corrupt, 0o600); err != nil {
				t.Fatal(err)
			}
			search(t, FromBuild) // rebuilt, and rewritten
			search(t, FromDisk)
		})
	}
}

// dumpNames renders the name tables of x in name order: each name's
// matching data, its entries, and whether looking it up finds it.
func dumpNames(x *Index) string {
	var lines []string
	for i := range x.names {
		n, d := &x.names[i], x.nameData(i)
		var entries []string
		for _, e := range x.byName[n.first : n.first+n.count] {
			entries = append(entries, x.entry(uint64(e)).QualifiedName)
		}
		found, ok := x.lookupName(d.name)
		lines = append(lines, fmt.Sprintf("%s lower=%s initials=%s mask=%x starts=%x masks=%v lookup=%v %v",
			d.name, d.lower, d.initials, d.mask, d.starts, nameMask(d.lower) == d.mask, ok && found == i, entries))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestDiskCacheThenSecondRevision loads the index of a revision from disk,
// then builds the next revision in the same process: the loaded files are
// reused, and their names interned only then.
func TestDiskCacheThenSecondRevision(t *testing.T) {
	r, c1 := newFixtureRepo(t, "testdata/fixture.txtar")
	c2 := r.commit(t, map[string]string{"sub/extra.go": "package sub\n\nfunc NewReaderExtra() {}\n"}, "second")
	ctx := context.Background()
	dir := t.TempDir()
	if err := NewIndexer(IndexerOptions{CacheDir: dir}).Warm(ctx, r.source(t, c1), Options{}); err != nil {
		t.Fatal(err)
	}
	ix := NewIndexer(IndexerOptions{CacheDir: dir})
	res, err := ix.Search(ctx, r.source(t, c1), Options{}, Query{Query: "NewReader"})
	if err != nil || res.Facts.From != FromDisk {
		t.Fatalf("first revision: from %q, err %v; want disk", res.Facts.From, err)
	}
	second, err := ix.Index(ctx, r.source(t, c2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := second.Facts(); f.Reparsed != 1 {
		t.Errorf("second revision: %d files parsed, want 1", f.Reparsed)
	}
	fresh, err := NewIndexer(IndexerOptions{}).Index(ctx, r.source(t, c2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := lineDiff(dumpNames(fresh), dumpNames(second)); d != "" {
		t.Errorf("second revision after a load differs from a fresh build:\n%s", d)
	}
}

// TestDecodeRefusesInconsistentTables decodes files that pass their
// checksum but whose tables point outside themselves: each is refused as
// corrupt, rather than loaded to fail a later search.
func TestDecodeRefusesInconsistentTables(t *testing.T) {
	idx := fixtureIndex(t)
	past := strRef{off: uint32(len(idx.strs)) - 2, len: 3}
	for name, spoil := range map[string]func(x *Index){
		"entry of no file":       func(x *Index) { x.entries[0].file = int32(len(x.files)) },
		"entry of no symbol":     func(x *Index) { x.entries[len(x.entries)-1].sym = 1 << 20 },
		"package with symbol":    func(x *Index) { x.entries[0].sym = 0 },
		"bad kind":               func(x *Index) { x.entries[0].kind = numKinds },
		"group past entries":     func(x *Index) { x.names[len(x.names)-1].count = int32(len(x.entries)) },
		"empty group":            func(x *Index) { x.names[0].count = 0 },
		"byName past entries":    func(x *Index) { x.byName[0] = int32(len(x.entries)) },
		"slot past names":        func(x *Index) { x.slots[slices.Index(x.slots, 0)] = int32(len(x.names) + 1) },
		"no empty slot":          func(x *Index) { fillSlots(x.slots) },
		"slots not power of 2":   func(x *Index) { x.slots = x.slots[:len(x.slots)-1] },
		"symbol kind":            func(x *Index) { x.syms[0].kind = 0 },
		"symbol doc past data":   func(x *Index) { x.syms[len(x.syms)-1].doc = past },
		"file path past data":    func(x *Index) { x.files[0].path = past },
		"name past data":         func(x *Index) { x.names[0].initials = past },
		"files overlap":          func(x *Index) { x.files[1].firstSym-- },
		"symbols no file holds":  func(x *Index) { x.syms = append(x.syms, x.syms[0]) },
		"file holds no symbols":  func(x *Index) { x.files[len(x.files)-1].numSyms++ },
		"a mask short":           func(x *Index) { x.masks = x.masks[1:] },
		"revision of another":    func(x *Index) { x.revision += "0" },
		"options of another":     func(x *Index) { x.opts.IncludeVendor = true },
		"parse failures ≥ bytes": func(x *Index) { x.facts.ParseFailures = 1 << 40 },
	} {
		t.Run(name, func(t *testing.T) {
			x := cloneTables(idx)
			spoil(x)
			if _, err := decodeIndex(encodeIndex(x), idx.revision, idx.opts); !errors.Is(err, errCorrupt) {
				t.Errorf("decoded with err %v, want %v", err, errCorrupt)
			}
		})
	}
	if _, err := decodeIndex(encodeIndex(idx), idx.revision, idx.opts); err != nil {
		t.Errorf("the unspoiled index: %v", err)
	}
	// Tables are read in place: a payload that is not aligned for them is
	// refused, not read through misaligned pointers.
	data := encodeIndex(idx)
	shifted := make([]byte, len(data)+1)[1:]
	copy(shifted, data)
	if _, err := decodeIndex(shifted, idx.revision, idx.opts); err == nil {
		t.Error("decoded a misaligned payload")
	}
}

// cloneTables copies the tables of x that TestDecodeRefusesInconsistentTables spoils.
func cloneTables(x *Index) *Index {
	c := *x
	c.files, c.syms, c.entries = slices.Clone(x.files), slices.Clone(x.syms), slices.Clone(x.entries)
	c.names, c.byName, c.masks, c.slots = slices.Clone(x.names), slices.Clone(x.byName), slices.Clone(x.masks), slices.Clone(x.slots)
	return &c
}

func fillSlots(slots []int32) {
	for i := range slots {
		if slots[i] == 0 {
			slots[i] = 1
		}
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x40
	return c
}

// TestDiskCacheConcurrentWriters stores and loads one entry from many
// goroutines, as concurrent processes would.
func TestDiskCacheConcurrentWriters(t *testing.T) {
	idx := fixtureIndex(t)
	d := &diskCache{dir: t.TempDir(), max: 4, log: NewIndexer(IndexerOptions{}).log}
	var wg sync.WaitGroup
	var bad atomic.Int32
	for range 8 {
		wg.Go(func() {
			for range 10 {
				d.store(idx)
				if loaded, ok := d.load(idx.revision, idx.opts); ok && len(loaded.files) != len(idx.files) {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d loads saw a partial file", bad.Load())
	}
	if loaded, ok := d.load(idx.revision, idx.opts); !ok || len(loaded.files) != len(idx.files) {
		t.Errorf("final load: ok %v, loaded %v", ok, loaded)
	}
	leftovers, _ := filepath.Glob(filepath.Join(d.dir, "*", ".tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// countingSource counts walks of a source.
type countingSource struct {
	Source
	walks atomic.Int32
}

func (s *countingSource) Walk(ctx context.Context, fn func(File) error) error {
	s.walks.Add(1)
	return s.Source.Walk(ctx, fn)
}

func TestConcurrentFirstQueriesBuildOnce(t *testing.T) {
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	src := &countingSource{Source: r.source(t, commit)}
	ix := NewIndexer(IndexerOptions{})
	var wg sync.WaitGroup
	var built atomic.Int32
	for range 8 {
		wg.Go(func() {
			res, err := ix.Search(context.Background(), src, Options{}, Query{Query: "NewReader"})
			if err != nil {
				t.Error(err)
				return
			}
			if res.Facts.From == FromBuild {
				built.Add(1)
			}
			if res.Total != 5 {
				t.Errorf("total %d", res.Total)
			}
		})
	}
	wg.Wait()
	if n := src.walks.Load(); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
	if built.Load() == 0 {
		t.Error("no caller reported the build")
	}
}

func TestCanceledWaiterDoesNotFailTheBuild(t *testing.T) {
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	ix := NewIndexer(IndexerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Index(ctx, r.source(t, commit), Options{}); err == nil {
		t.Log("build finished before the canceled caller gave up")
	}
	if _, err := ix.Index(context.Background(), r.source(t, commit), Options{}); err != nil {
		t.Errorf("after a canceled caller: %v", err)
	}
}

func TestWorkTreeSeesEdits(t *testing.T) {
	r, _ := newFixtureRepo(t, "testdata/fixture.txtar")
	ix := NewIndexer(IndexerOptions{})
	ctx := context.Background()
	src := r.worktree(t)
	if _, err := ix.Index(ctx, src, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "sub", "edit.go"), []byte("package sub\n\nfunc Edited() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, src, Options{}, Query{Query: "Edited"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Facts.Reparsed != 1 || res.Facts.Revision != "" {
		t.Errorf("after an edit: total %d, facts %+v; want 1 match, 1 file parsed", res.Total, res.Facts)
	}
}

// countingReads counts the .go files a working tree's source reads
// (go.mod files are read on every build: they are few and small).
type countingReads struct {
	*SnapshotSource
	reads atomic.Int32
}

func (s *countingReads) ReadFile(ctx context.Context, f File) ([]byte, error) {
	if strings.HasSuffix(f.Path, ".go") {
		s.reads.Add(1)
	}
	return s.SnapshotSource.ReadFile(ctx, f)
}

func TestWorkTreeReadsOnlyChangedFiles(t *testing.T) {
	r, _ := newFixtureRepo(t, "testdata/fixture.txtar")
	old := time.Now().Add(-time.Hour)
	ageAll := func() {
		filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				os.Chtimes(p, old, old)
			}
			return err
		})
	}
	ageAll()
	ix := NewIndexer(IndexerOptions{})
	ctx := context.Background()
	index := func(t *testing.T) (*Index, int) {
		t.Helper()
		src := &countingReads{SnapshotSource: r.worktree(t)}
		idx, err := ix.Index(ctx, src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return idx, int(src.reads.Load())
	}
	first, reads := index(t)
	if reads == 0 {
		t.Fatal("the first index read nothing")
	}
	if _, reads := index(t); reads != 0 {
		t.Errorf("unchanged work tree: %d files read, want 0", reads)
	}

	// Same size, same (old) time stamp, new contents: a write the time
	// stamp cannot show. The memo cannot see it either, until the stamp
	// moves; a changed stamp is seen at once.
	if err := os.WriteFile(filepath.Join(r.dir, "sub", "reader.go"), []byte(strings.Replace(mustRead(t, r.dir, "sub/reader.go"), "NewReader()", "NewRe4der()", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	newer := old.Add(time.Minute)
	os.Chtimes(filepath.Join(r.dir, "sub", "reader.go"), newer, newer)
	idx, reads := index(t)
	if reads != 1 || idx.Facts().Reparsed != 1 {
		t.Errorf("one edited file: %d read, %d parsed; want 1 and 1", reads, idx.Facts().Reparsed)
	}
	if res, _ := idx.Search(Query{Query: "NewRe4der", Match: MatchExact}); res.Total != 1 {
		t.Errorf("edit not indexed: %d matches", res.Total)
	}
	if first.ID() == idx.ID() {
		t.Error("index ids equal across an edit")
	}

	// A file written just now is read again on every build until its time
	// stamp is safely in the past.
	if err := os.WriteFile(filepath.Join(r.dir, "sub", "fresh.go"), []byte("package sub\n\nfunc Fresh() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, reads := index(t); reads != 1 {
			t.Errorf("fresh file: %d files read, want 1", reads)
		}
	}
}

func mustRead(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDiskCachePrunesLeastRecentlyUsed(t *testing.T) {
	idx := fixtureIndex(t)
	d := &diskCache{dir: t.TempDir(), max: 2, log: NewIndexer(IndexerOptions{}).log}
	past := time.Now().Add(-time.Hour)
	revs := []string{"r1", "r2", "r3"}
	store := func(rev string) {
		x := *idx
		x.revision = rev
		d.store(&x)
	}
	for i, rev := range revs {
		store(rev)
		// Distinct, increasing use times, whatever the clock's resolution.
		when := past.Add(time.Duration(i) * time.Minute)
		os.Chtimes(d.path(rev, idx.opts), when, when)
	}
	store("r4") // prunes r1 and r2
	for rev, want := range map[string]bool{"r1": false, "r2": false, "r3": true, "r4": true} {
		if _, ok := d.load(rev, idx.opts); ok != want {
			t.Errorf("%s cached: %v, want %v", rev, ok, want)
		}
	}
}

// TestEntriesOutliveLoadedIndex reads the entries of a search after the
// index they came from, loaded from disk, was dropped and its file
// unmapped: entries hold copies of the index's strings, so this reads
// them rather than faulting.
func TestEntriesOutliveLoadedIndex(t *testing.T) {
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	ctx := context.Background()
	dir := t.TempDir()
	if err := NewIndexer(IndexerOptions{CacheDir: dir}).Warm(ctx, r.source(t, commit), Options{}); err != nil {
		t.Fatal(err)
	}
	built, err := fixtureIndex(t).Search(Query{Query: "NewReader"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(built.Entries)
	dropped := make(chan struct{})
	res := func() *Result {
		ix := NewIndexer(IndexerOptions{CacheDir: dir})
		idx, err := ix.Index(ctx, r.source(t, commit), Options{})
		if err != nil || idx.Facts().From != FromDisk {
			t.Fatalf("loading: %v, from %q", err, idx.Facts().From)
		}
		runtime.AddCleanup(idx, func(ch chan struct{}) { close(ch) }, dropped)
		res, err := idx.Search(Query{Query: "NewReader"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}()
	for done := false; !done; {
		runtime.GC()
		select {
		case <-dropped:
			done = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	runtime.GC() // and let the unmapping cleanup run too
	time.Sleep(10 * time.Millisecond)
	if got := fmt.Sprint(res.Entries); got != want {
		t.Errorf("entries after the index was dropped:\n%s\nwant\n%s", got, want)
	}
}

// TestWorkTreeIndexReusedUntilChanged queries an unchanged working tree
// twice: the second query reuses the first one's tables. A changed go.mod
// (no .go file changed, so no file is parsed again) still gives a new
// index, with the new import paths.
func TestWorkTreeIndexReusedUntilChanged(t *testing.T) {
	r, _ := newFixtureRepo(t, "testdata/fixture.txtar")
	ix := NewIndexer(IndexerOptions{})
	ctx := context.Background()
	index := func() *Index {
		t.Helper()
		idx, err := ix.Index(ctx, r.worktree(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return idx
	}
	first, second := index(), index()
	if &first.entries[0] != &second.entries[0] || second.Facts().Reparsed != 0 {
		t.Errorf("unchanged work tree: tables shared %v, %d files parsed; want shared, 0",
			&first.entries[0] == &second.entries[0], second.Facts().Reparsed)
	}
	mod := filepath.Join(r.dir, "go.mod")
	if err := os.WriteFile(mod, []byte(strings.Replace(mustRead(t, r.dir, "go.mod"), "example.com/fix", "example.com/moved", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := index().Search(Query{Query: "Amber"})
	if err != nil || len(res.Entries) != 1 || res.Entries[0].Package != "example.com/moved" {
		t.Errorf("after go.mod moved the module: %+v, %v", res, err)
	}
}

// TestDiskLoadReadsNoTree answers a new indexer's query from the disk
// cache without walking the snapshot or reading a file: the revision alone
// names the cache file.
func TestDiskLoadReadsNoTree(t *testing.T) {
	r, commit := newFixtureRepo(t, "testdata/fixture.txtar")
	ctx := context.Background()
	dir := t.TempDir()
	if err := NewIndexer(IndexerOptions{CacheDir: dir}).Warm(ctx, r.source(t, commit), Options{}); err != nil {
		t.Fatal(err)
	}
	src := &countingSource{Source: r.source(t, commit)}
	res, err := NewIndexer(IndexerOptions{CacheDir: dir}).Search(ctx, src, Options{}, Query{Query: "NewReader"})
	if err != nil || res.Facts.From != FromDisk || res.Total != 5 {
		t.Fatalf("from %q, total %d, err %v; want 5 from disk", res.Facts.From, res.Total, err)
	}
	if n := src.walks.Load(); n != 0 {
		t.Errorf("%d walks before answering from disk, want 0", n)
	}
}
