package goindex

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"go/token"
	"slices"
	"strings"
)

// An Index holds the declarations of one snapshot and answers queries over
// them. It is immutable and safe for concurrent use. Its tables are
// described in tables.go.
type Index struct {
	revision string
	opts     Options
	id       [16]byte // digest of the snapshot's paths and blob ids; binds cursors
	strs     string   // the tables' strings (see strRef)
	files    []fileRec
	syms     []symRec   // the files' symbols, file after file
	entries  []entryRef // in stable order: import path, file path, source order
	names    []nameRec  // the distinct names
	byName   []int32    // entry numbers grouped by name (see nameRec.first)
	masks    []uint64   // nameMask of each name, scanned without touching names
	slots    []int32    // a hash table of names (see nameSlots)
	facts    Facts
}

// indexedFile is one .go file of a snapshot being assembled.
type indexedFile struct {
	path       string
	id         string // blob id
	importPath string
	pf         *parsedFile
}

func (f *indexedFile) test() bool { return strings.HasSuffix(f.path, "_test.go") }

// entryRef locates one entry: a symbol of a file, or (sym < 0) the package
// clause of a file that stands for its package.
type entryRef struct {
	// rank orders entries within one match tier: unexported after exported,
	// test after non-test, deeper packages after shallower ones, longer
	// names after shorter ones, and finally the entry's own number.
	rank uint64
	file int32
	sym  int32 // within the file's symbols
	kind Kind
	_    [7]byte
}

// The layout of a ranking key, most significant first: the match tier (3
// bits), the fuzzy score inverted (10 bits), then the entry's rank:
// unexported, test, package depth (6 bits), name length (8 bits), and the
// entry's number (32 bits), which makes every key distinct.
const (
	tierShift      = 58
	scoreShift     = 48
	rankUnexported = 1 << 47
	rankTest       = 1 << 46
)

// From tells where an index came from.
type From string

const (
	FromBuild  From = "build"  // built (parsing what the blob cache lacked)
	FromMemory From = "memory" // already in memory
	FromDisk   From = "disk"   // loaded from the on-disk cache
)

// Facts describe an index.
type Facts struct {
	Revision      string // the snapshot's revision; "" for a working tree
	Files         int    // .go files indexed
	ParseFailures int    // files with syntax errors, indexed as far as they parsed
	Symbols       int    // entries, packages included
	Reparsed      int    // files parsed while building; the rest came from the blob cache
	From          From   // where the index came from, for this call
}

// Facts returns the facts of the index.
func (x *Index) Facts() Facts { return x.facts }

// Revision returns the revision the index was built from.
func (x *Index) Revision() string { return x.revision }

// assemble builds an index from parsed files, grouping their names by the
// ids table gives them.
func assemble(rev string, opts Options, files []indexedFile, table *nameTable) (*Index, error) {
	table.internFiles(files)
	slices.SortFunc(files, func(a, b indexedFile) int {
		return cmp.Or(strings.Compare(a.importPath, b.importPath), strings.Compare(a.path, b.path))
	})
	x := &Index{revision: rev, opts: opts}
	x.facts = Facts{Revision: rev, Files: len(files), From: FromBuild}
	h := sha256.New()
	h.Write([]byte(rev + "\x00" + opts.key() + "\x00"))
	syms, size := 0, 0
	for i := range files {
		f := &files[i]
		h.Write([]byte(f.path + "\x00" + f.id + "\x00"))
		syms += len(f.pf.syms)
		size += f.pf.stringBytes() + len(f.path) + len(f.id) + len(f.importPath)
		if f.pf.parseErr {
			x.facts.ParseFailures++
		}
	}
	copy(x.id[:], h.Sum(nil))

	x.entries = make([]entryRef, 0, len(files)+syms)
	nameOf := make([]int32, 0, cap(x.entries)) // the name id of each entry
	for start := 0; start < len(files); {
		end := start + 1
		for end < len(files) && files[end].importPath == files[start].importPath {
			end++
		}
		nameOf = x.addPackage(files, start, end, nameOf)
		start = end
	}
	x.facts.Symbols = len(x.entries)
	var strs strTable
	x.groupNames(table.snapshot(), nameOf, &strs, size)
	x.files = make([]fileRec, 0, len(files))
	x.syms = make([]symRec, 0, syms)
	for i := range files {
		strs.addFile(x, &files[i])
	}
	if strs.err != nil {
		return nil, strs.err
	}
	x.strs = strs.b.String()
	return x, nil
}

// addPackage adds the entries of files[start:end], which share an import
// path: one package entry per package name, then each file's symbols. It
// appends the name ids of the entries to nameOf.
func (x *Index) addPackage(files []indexedFile, start, end int, nameOf []int32) []int32 {
	depth := uint64(strings.Count(files[start].importPath, "/"))
	var seen []string
	for i := start; i < end; i++ {
		if pf := files[i].pf; pf.pkgName != "" && !slices.Contains(seen, pf.pkgName) {
			seen = append(seen, pf.pkgName)
			file := packageFile(files[start:end], pf.pkgName) + start
			x.add(int32(file), -1, KindPackage, pf.pkgName, depth, files[file].test())
			nameOf = append(nameOf, pf.pkgID)
		}
	}
	for i := start; i < end; i++ {
		pf := files[i].pf
		for j, s := range pf.syms {
			x.add(int32(i), int32(j), s.kind, s.name, depth, files[i].test())
		}
		nameOf = append(nameOf, pf.ids...)
	}
	return nameOf
}

// packageFile picks the file that stands for a package: the first with a
// package comment, else the first that is not a test.
func packageFile(files []indexedFile, name string) int {
	best := -1
	for i := range files {
		pf := files[i].pf
		if pf.pkgName != name {
			continue
		}
		if pf.pkgDoc != "" && !files[i].test() {
			return i
		}
		if best < 0 || files[best].test() && !files[i].test() {
			best = i
		}
	}
	return best
}

func (x *Index) add(file, sym int32, kind Kind, name string, depth uint64, test bool) {
	var rank uint64
	if kind != KindPackage && !token.IsExported(name) {
		rank |= rankUnexported
	}
	if test {
		rank |= rankTest
	}
	rank |= min(depth, 63)<<40 | uint64(min(len(name), 255))<<32 | uint64(len(x.entries))
	x.entries = append(x.entries, entryRef{file: file, sym: sym, kind: kind, rank: rank})
}

// name returns the declared name of entry e.
func (x *Index) name(e *entryRef) string {
	f := &x.files[e.file]
	if e.sym < 0 {
		return x.str(f.pkgName)
	}
	return x.str(x.syms[f.firstSym+e.sym].name)
}

// ID returns a digest that identifies the snapshot and options the index
// was built from.
func (x *Index) ID() string { return hex.EncodeToString(x.id[:]) }
