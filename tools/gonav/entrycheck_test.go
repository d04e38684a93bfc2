package gonav

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// storeFixture is a module of two packages checked in this process,
// without go list: q declares an interface, p implements and calls it,
// with unexported functions, a variable, a constant and a type declared
// in a function, so that every table of p's index has rows.
const storeFixture = `
-- q/q.go --
// Package q declares a shape.
package q

// Shape has an area.
type Shape interface{ Area() float64 }

// Sum adds areas.
func Sum(s ...Shape) float64 {
	t := 0.0
	for _, x := range s {
		t += x.Area()
	}
	return t
}
-- p/p.go --
package p

import "example.com/m/q"

// Square is a square.
type Square struct{ Side float64 }

// Area is the side squared.
func (s Square) Area() float64 { return s.Side * s.Side }

const two = 2

var calls int

func double(x float64) float64 { calls++; return two * x }

// Total doubles a square's area, plus a circle's radius.
func Total(a Square) float64 {
	type circle struct{ r float64 }
	c := circle{r: 1}
	return double(q.Sum(a)) + c.r
}
`

// storeLoad is one process's load of storeFixture through a type store.
type storeLoad struct {
	l       *loader
	nodes   map[string]*node // by import path
	checked int
	log     *bytes.Buffer // warnings
}

// writeStoreFixture writes storeFixture under a new directory, its root.
func writeStoreFixture(t testing.TB) string {
	root := t.TempDir()
	for _, f := range txtar.Parse([]byte(storeFixture)).Files {
		writeFile(t, filepath.Join(root, f.Name), f.Data)
	}
	return root
}

// loadStoreFixture loads the fixture at root as a new process would,
// with the type store in dir, and has every index built or read, as a
// process does after its first answer (indexRest), and the entries
// written.
func loadStoreFixture(t testing.TB, root, dir string) *storeLoad {
	t.Helper()
	s := loadUnindexed(t, root, dir)
	for _, n := range s.nodes {
		mustIndex(t, n.unit)
	}
	s.l.store.wait()
	return s
}

// loadUnindexed is loadStoreFixture up to the end of the load: no
// index is built or read yet.
func loadUnindexed(t testing.TB, root, dir string) *storeLoad {
	t.Helper()
	s := &storeLoad{log: new(bytes.Buffer)}
	log := slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s.l = &loader{fset: token.NewFileSet(), cache: newUnitCache(), store: newTypeStore(dir, log), tables: &posTables{}, log: log, workers: 1, maxFileBytes: DefaultMaxFileBytes}
	listed := []*listedPackage{
		{ImportPath: "example.com/m/q", Name: "q", Dir: filepath.Join(root, "q"), GoFiles: []string{"q.go"}},
		{ImportPath: "example.com/m/p", Name: "p", Dir: filepath.Join(root, "p"), GoFiles: []string{"p.go"}, Imports: []string{"example.com/m/q"}},
	}
	r := roots{export: root}
	nodes, order := s.l.graph(listed, r)
	sums := newFileSums(root, nil)
	for _, n := range order {
		s.l.prepare(n, r, sums)
	}
	checked, err := s.l.checkAll(context.Background(), order)
	if err != nil {
		t.Fatal(err)
	}
	s.nodes, s.checked = nodes, checked
	return s
}

// entryOf returns the bytes of the entry of an import path, as stored.
func (s *storeLoad) entryOf(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(s.l.store.path(s.nodes[path].key))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// walkIndex reads every row of a unit's index as queries do, and finds
// every object it names: what panics on an index that does not hold
// together.
func walkIndex(ix *unitIndex) {
	for i, f := range ix.Files {
		ix.pos(int32(i), f.Clause)
	}
	for i, id := range ix.Idents {
		ix.pos(id.File, id.Off)
		ix.key(id.Def)
		ix.key(id.Use)
		ix.method(id.Use)
		ix.enclosing(id.Func)
		ix.named(ix.Names[id.Name])
		if ix.identAt(id.File, id.Off) != int32(i) {
			panic("an identifier is not found at its offset")
		}
	}
	for _, c := range ix.Calls {
		ix.pos(c.File, c.Off)
		ix.pos(c.File, c.Lparen)
		ix.key(c.Callee)
	}
	for _, im := range ix.Imports {
		ix.pos(im.File, im.Off)
	}
	for _, fn := range ix.Funcs {
		ix.pos(fn.File, fn.Start)
		ix.pos(fn.File, fn.End)
	}
	for i := range ix.Objects {
		ix.object(int32(i))
	}
}

// rawEntry decodes an entry without checking it.
func rawEntry(t testing.TB, data []byte) *storedUnit {
	t.Helper()
	e, err := unmarshalEntry(data, true)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func encodeEntry(t testing.TB, e *storedUnit) []byte {
	t.Helper()
	return e.marshal()
}

// TestEntryRefusesInconsistentTables decodes entries that decode but
// whose tables point outside themselves, or that are not the entry of
// the package they are read for: each is refused as damaged, rather
// than read to panic a later query or to name a file outside the roots.
func TestEntryRefusesInconsistentTables(t *testing.T) {
	s := loadStoreFixture(t, writeStoreFixture(t), t.TempDir())
	n := s.nodes["example.com/m/p"]
	data := s.entryOf(t, "example.com/m/p")
	e, err := decodeEntry(data, n.key, true)
	if err != nil {
		t.Fatalf("the unspoiled entry: %v", err)
	}
	if err := e.fits(n); err != nil {
		t.Fatalf("the unspoiled entry does not fit its package: %v", err)
	}
	last := func(ix *unitIndex) int { return len(ix.Idents) - 1 }
	size := func(e *storedUnit) int32 { return e.Index.Files[0].Size }
	spoils := map[string]func(e *storedUnit){
		"another key":                func(e *storedUnit) { e.Key += "0" },
		"no key":                     func(e *storedUnit) { e.Key = "" },
		"position at line 0":         func(e *storedUnit) { e.Files["p/p.go"][1].Line = 0 },
		"negative column":            func(e *storedUnit) { e.Files["p/p.go"][1].Col = -3 },
		"a file name more":           func(e *storedUnit) { e.FileNames = append(e.FileNames, "p/q.go") },
		"index of another file":      func(e *storedUnit) { e.Index.Files[0].Name = "p/q.go" },
		"negative size":              func(e *storedUnit) { e.Index.Files[0].Size = -1 },
		"clause past the end":        func(e *storedUnit) { e.Index.Files[0].Clause = size(e) },
		"no lines":                   func(e *storedUnit) { e.Index.Files[0].Lines = nil },
		"lines out of order":         func(e *storedUnit) { l := e.Index.Files[0].Lines; l[1], l[2] = l[2], l[1] },
		"line past the end":          func(e *storedUnit) { l := e.Index.Files[0].Lines; l[len(l)-1] = size(e) },
		"names out of order":         func(e *storedUnit) { e.Index.Names[0], e.Index.Names[1] = e.Index.Names[1], e.Index.Names[0] },
		"identifier of no file":      func(e *storedUnit) { e.Index.Idents[0].File = 1 },
		"identifier of file -1":      func(e *storedUnit) { e.Index.Idents[0].File = -1 },
		"identifier past the end":    func(e *storedUnit) { e.Index.Idents[last(e.Index)].Off = size(e) },
		"negative offset":            func(e *storedUnit) { e.Index.Idents[0].Off = -1 },
		"identifier of no name":      func(e *storedUnit) { e.Index.Idents[0].Name = int32(len(e.Index.Names)) },
		"identifier of no object":    func(e *storedUnit) { e.Index.Idents[0].Def = int32(len(e.Index.Objects)) },
		"use of object -2":           func(e *storedUnit) { e.Index.Idents[0].Use = -2 },
		"identifier of no function":  func(e *storedUnit) { e.Index.Idents[0].Func = int32(len(e.Index.Funcs)) },
		"identifiers out of order":   func(e *storedUnit) { e.Index.Idents[0], e.Index.Idents[1] = e.Index.Idents[1], e.Index.Idents[0] },
		"group past the identifiers": func(e *storedUnit) { e.Index.NameStart[1] = int32(len(e.Index.Idents) + 1) },
		"group ends before it starts": func(e *storedUnit) {
			e.Index.NameStart[1], e.Index.NameStart[2] = e.Index.NameStart[2], e.Index.NameStart[1]
		},
		"a group start short":         func(e *storedUnit) { e.Index.NameStart = e.Index.NameStart[1:] },
		"byName past the identifiers": func(e *storedUnit) { e.Index.ByName[0] = int32(len(e.Index.Idents)) },
		"byName of another name": func(e *storedUnit) {
			e.Index.ByName[0], e.Index.ByName[len(e.Index.ByName)-1] = e.Index.ByName[len(e.Index.ByName)-1], e.Index.ByName[0]
		},
		"object of kind 9": func(e *storedUnit) { e.Index.Objects[0].Kind = 9 },
		"function ends before it starts": func(e *storedUnit) {
			e.Index.Funcs[0].End = e.Index.Funcs[0].Start - 1
		},
		"function past the end":     func(e *storedUnit) { e.Index.Funcs[0].End = size(e) + 1 },
		"function of no object":     func(e *storedUnit) { e.Index.Funcs[0].Obj = int32(len(e.Index.Objects)) },
		"import past the end":       func(e *storedUnit) { e.Index.Imports[0].Off = size(e) },
		"import of no file":         func(e *storedUnit) { e.Index.Imports[0].File = 2 },
		"call of no callee":         func(e *storedUnit) { e.Index.Calls[0].Callee = noRef },
		"call of object past":       func(e *storedUnit) { e.Index.Calls[0].Callee = int32(len(e.Index.Objects)) },
		"call from no caller":       func(e *storedUnit) { e.Index.Calls[0].Caller = int32(len(e.Index.Objects)) },
		"parenthesis past the end":  func(e *storedUnit) { e.Index.Calls[0].Lparen = size(e) },
		"local type of no object":   func(e *storedUnit) { e.Index.LocalTypes[0] = int32(len(e.Index.Objects)) },
		"local type of object -1":   func(e *storedUnit) { e.Index.LocalTypes[0] = noRef },
		"file outside the roots":    func(e *storedUnit) { e.FileNames[0], e.Index.Files[0].Name = "../../etc/passwd", "../../etc/passwd" },
		"a file of another package": func(e *storedUnit) { e.FileNames[0], e.Index.Files[0].Name = "q/q.go", "q/q.go" },
		"no API key":                func(e *storedUnit) { e.APIKey = "" },
		"no index":                  func(e *storedUnit) { e.Index, e.FileNames = nil, nil },
	}
	for name, spoil := range spoils {
		t.Run(name, func(t *testing.T) {
			e := rawEntry(t, data)
			spoil(e)
			got, err := decodeEntry(encodeEntry(t, e), n.key, true)
			if err == nil {
				err = got.fits(n)
			}
			if !errors.Is(err, errDamaged) {
				t.Errorf("read with err %v, want %v", err, errDamaged)
			}
		})
	}
	for _, cut := range []int{0, 1, len(data) / 3, len(data) / 2, len(data) - 1} {
		if _, err := decodeEntry(data[:cut], n.key, true); !errors.Is(err, errDamaged) {
			t.Errorf("the entry cut at %d of %d bytes: err %v, want %v", cut, len(data), err, errDamaged)
		}
	}
}

// TestDamagedEntryIsChecked damages entries on disk: a new process
// checks their packages again, warns, answers as from a whole entry,
// and writes the entry again, which the next process reads. Damage in
// the index, which a load does not read, is found when a query first
// needs the index (readIndex): the package is checked then.
func TestDamagedEntryIsChecked(t *testing.T) {
	root := writeStoreFixture(t)
	tests := []struct {
		name   string
		damage func(t *testing.T, data []byte) []byte
		// inIndex says the damage is in the index: the load checks
		// nothing, the first query of the index checks p.
		inIndex bool
	}{
		{"cut", func(t *testing.T, data []byte) []byte { return data[:len(data)/2] }, false},
		{"garbage", func(t *testing.T, data []byte) []byte { return bytes.Repeat([]byte{0x5a}, len(data)) }, false},
		{"an identifier of no object", func(t *testing.T, data []byte) []byte {
			e := rawEntry(t, data)
			e.Index.Idents[3].Use = int32(len(e.Index.Objects) + 7)
			return encodeEntry(t, e)
		}, true},
		{"an offset past the file", func(t *testing.T, data []byte) []byte {
			e := rawEntry(t, data)
			e.Index.Calls[0].Off = 1 << 30
			return encodeEntry(t, e)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := loadStoreFixture(t, root, dir)
			want := mustIndex(t, first.nodes["example.com/m/p"].unit)
			path := first.l.store.path(first.nodes["example.com/m/p"].key)
			writeFile(t, path, tc.damage(t, first.entryOf(t, "example.com/m/p")))

			second := loadStoreFixture(t, root, dir)
			if wantChecked := map[bool]int{false: 1, true: 0}[tc.inIndex]; second.checked != wantChecked {
				t.Errorf("after damage, %d packages checked to load, want %d", second.checked, wantChecked)
			}
			got := mustIndex(t, second.nodes["example.com/m/p"].unit)
			second.l.store.wait()
			if !strings.Contains(second.log.String(), "damaged") {
				t.Errorf("no warning of the damage; log:\n%s", second.log)
			}
			sameTables(t, got, want)
			third := loadStoreFixture(t, root, dir)
			walkIndex(mustIndex(t, third.nodes["example.com/m/p"].unit))
			if third.checked != 0 || third.log.Len() != 0 {
				t.Errorf("after the entry was written again, %d packages checked, want 0; log:\n%s", third.checked, third.log)
			}
		})
	}
}

// FuzzTypeStoreEntry reads any bytes as p's entry, as a new process
// would, and queries p's index when the entry is read: never a panic.
// (A damaged entry is checked again: TestDamagedEntryIsChecked. The
// check runs in goroutines, whose coverage is not the input's.)
func FuzzTypeStoreEntry(f *testing.F) {
	s := loadStoreFixture(f, writeStoreFixture(f), f.TempDir())
	n := s.nodes["example.com/m/p"]
	data := s.entryOf(f, "example.com/m/p")
	f.Add(data)
	f.Add(data[:len(data)/2])
	e := rawEntry(f, data)
	e.Index.Idents[0].Off = -5
	f.Add(encodeEntry(f, e))
	f.Fuzz(func(t *testing.T, data []byte) {
		writeFile(t, s.l.store.path(n.key), data)
		if u := s.l.read(n); u != nil {
			// The index is read now (readIndex); a damaged one has
			// its package checked, and its entry written again.
			walkIndex(mustIndex(t, u))
			s.l.store.wait()
		}
	})
}

// TestReadFileStaysInRoots: a file name that leaves its root, which only
// a damaged or foreign entry could give, is not read.
func TestReadFileStaysInRoots(t *testing.T) {
	root := writeStoreFixture(t)
	writeFile(t, filepath.Join(root, "..", "secret"), []byte("secret\n"))
	r := roots{export: filepath.Join(root), goRoot: filepath.Join(root, "q"), modCache: filepath.Join(root, "p")}
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"q/q.go", true},
		{"$GOROOT/q.go", true},
		{"$GOMODCACHE/p.go", true},
		{"../secret", false},
		{"q/../../secret", false},
		{"$GOROOT/../../secret", false},
		{"$GOMODCACHE/../../secret", false},
		{"/etc/passwd", false},
	} {
		if _, err := r.readFile(tc.name); (err == nil) != tc.ok {
			t.Errorf("readFile(%q): err %v, want read %t", tc.name, err, tc.ok)
		}
	}
}

// TestIndexCodec: an index encoded and decoded (indexcodec.go) has the
// tables it had; cut short, it does not decode.
func TestIndexCodec(t *testing.T) {
	s := loadStoreFixture(t, writeStoreFixture(t), t.TempDir())
	want := mustIndex(t, s.nodes["example.com/m/p"].unit).stored()
	data := want.encode()
	got := new(unitIndex)
	if err := got.decode(data); err != nil {
		t.Fatal(err)
	}
	strip := func(ix *unitIndex) *unitIndex {
		c := &unitIndex{Names: ix.Names, ByName: ix.ByName, NameStart: ix.NameStart, Idents: ix.Idents, Funcs: ix.Funcs, Imports: ix.Imports, Calls: ix.Calls, LocalTypes: ix.LocalTypes}
		for _, f := range ix.Files {
			f.tf = nil
			c.Files = append(c.Files, f)
		}
		for _, o := range ix.Objects {
			o.obj = nil
			c.Objects = append(c.Objects, o)
		}
		return c
	}
	if !reflect.DeepEqual(strip(got), strip(want)) {
		t.Errorf("decoded\n%+v\nencoded\n%+v", strip(got), strip(want))
	}
	for _, cut := range []int{0, 1, len(data) / 2, len(data) - 1} {
		if err := new(unitIndex).decode(data[:cut]); err == nil {
			t.Errorf("the index cut at %d of %d bytes decoded", cut, len(data))
		}
	}
	if err := new(unitIndex).decode(append(data, 0)); err == nil {
		t.Error("the index with a byte more decoded")
	}
}

// TestEntryCodec: an entry decoded and encoded again (entrycodec.go) is
// the same bytes, which processes sharing the cache directory rely on to
// write one file under a key; bytes that are not a whole entry of this
// format are damaged.
func TestEntryCodec(t *testing.T) {
	s := loadStoreFixture(t, writeStoreFixture(t), t.TempDir())
	for _, path := range []string{"example.com/m/p", "example.com/m/q"} {
		data := s.entryOf(t, path)
		if again := rawEntry(t, data).marshal(); !bytes.Equal(again, data) {
			t.Errorf("%s: the entry encoded again differs from the one written", path)
		}
	}
	// Tables of many files, which a map holds.
	e := rawEntry(t, s.entryOf(t, "example.com/m/p"))
	for i := range 8 {
		e.Files[fmt.Sprintf("p/f%d.go", i)] = []lineCol{{1, 1}, {int32(i + 2), 3}}
	}
	first := e.marshal()
	for range 4 {
		if !bytes.Equal(e.marshal(), first) {
			t.Fatal("an entry of many files is encoded as different bytes")
		}
	}
	data := s.entryOf(t, "example.com/m/p")
	for name, spoiled := range map[string][]byte{
		"another format":   append([]byte("gonav types v4\n"), data[len(entryMagic):]...),
		"a byte more":      append(bytes.Clone(data), 0),
		"no index's bytes": data[:len(data)-len(rawEntry(t, data).Index.encode())],
	} {
		if _, err := unmarshalEntry(spoiled, true); !errors.Is(err, errDamaged) {
			t.Errorf("%s: err %v, want %v", name, err, errDamaged)
		}
	}
}

// sameTables reads every row of p's index got, which must have as many
// identifiers and calls as want.
func sameTables(t *testing.T, got, want *unitIndex) {
	t.Helper()
	walkIndex(got)
	if len(got.Idents) != len(want.Idents) || len(got.Calls) != len(want.Calls) {
		t.Errorf("p's index: %d identifiers and %d calls, want %d and %d", len(got.Idents), len(got.Calls), len(want.Idents), len(want.Calls))
	}
}

// TestIndexReadWhenAsked: a load reads a repository package's entry
// without its index, which the first query of it reads (readIndex); an
// entry gone, damaged or another package's by then is warned of, and the
// package is checked again for its index.
func TestIndexReadWhenAsked(t *testing.T) {
	root := writeStoreFixture(t)
	tests := []struct {
		name   string
		change func(t *testing.T, s *storeLoad, path string)
		warned bool
	}{
		{"kept", func(t *testing.T, s *storeLoad, path string) {}, false},
		{"removed", func(t *testing.T, s *storeLoad, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"garbage", func(t *testing.T, s *storeLoad, path string) { writeFile(t, path, []byte(entryMagic+"garbage")) }, true},
		{"another package's", func(t *testing.T, s *storeLoad, path string) {
			writeFile(t, path, s.entryOf(t, "example.com/m/q"))
		}, true},
		{"of the key, another package's files", func(t *testing.T, s *storeLoad, path string) {
			e := rawEntry(t, s.entryOf(t, "example.com/m/p"))
			e.FileNames[0], e.Index.Files[0].Name = "q/q.go", "q/q.go"
			writeFile(t, path, encodeEntry(t, e))
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := loadStoreFixture(t, root, dir)
			want := mustIndex(t, first.nodes["example.com/m/p"].unit)
			second := loadUnindexed(t, root, dir)
			u := second.nodes["example.com/m/p"].unit
			if second.checked != 0 {
				t.Fatalf("%d packages checked to load, want 0", second.checked)
			}
			if _, done := u.indexReady(); done {
				t.Error("the load read p's index")
			}
			tc.change(t, second, second.l.store.path(u.key))
			got := mustIndex(t, u)
			second.l.store.wait()
			sameTables(t, got, want)
			if warned := strings.Contains(second.log.String(), "damaged"); warned != tc.warned {
				t.Errorf("warned %t, want %t; log:\n%s", warned, tc.warned, second.log)
			}
		})
	}
}
