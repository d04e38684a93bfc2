package goindex

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// An index is a handful of tables of fixed-width records without pointers,
// and one string that every record's strings are slices of. A built index
// and one loaded from disk have the same tables: the cache file holds them
// byte for byte (see diskformat.go), so loading maps the file and points
// the tables into it, decoding nothing.

// strRef is a string of an index: a slice of its string data.
type strRef struct{ off, len uint32 }

// fileRec is one .go file of a snapshot.
type fileRec struct {
	path, id, importPath strRef
	pkgName              strRef // "" when the package clause did not parse
	pkgDoc               strRef // first sentence of the package comment
	constraint           strRef // the //go:build expression, if any
	pkgLine, pkgCol      int32
	firstSym, numSyms    int32 // its symbols are syms[firstSym : firstSym+numSyms]
	flags                uint32
}

const (
	fileTest     = 1 << iota // a _test.go file
	fileParseErr             // the file has syntax errors; its symbols are what parsed
)

// symRec is one declaration of a file (see symbol).
type symRec struct {
	name, container, sig, doc strRef
	line, col                 int32
	kind                      Kind
	ptrRecv                   bool
	_                         [2]byte
}

// nameRec is one distinct name declared in an index, with what matching
// needs of it (see nameData); its mask is in Index.masks.
type nameRec struct {
	starts                uint64
	name, lower, initials strRef
	first, count          int32 // its entries are byName[first : first+count]
}

// The records' sizes, which the file format depends on: a field added to
// a record breaks the build here until diskVersion is raised with it.
var (
	_ [68]byte = [unsafe.Sizeof(fileRec{})]byte{}
	_ [44]byte = [unsafe.Sizeof(symRec{})]byte{}
	_ [24]byte = [unsafe.Sizeof(entryRef{})]byte{}
	_ [40]byte = [unsafe.Sizeof(nameRec{})]byte{}
)

// str returns the string r refers to.
func (x *Index) str(r strRef) string {
	return x.strs[r.off : r.off+r.len]
}

func (f *fileRec) test() bool { return f.flags&fileTest != 0 }

// nameData returns the matching data of name i.
func (x *Index) nameData(i int) nameData {
	n := &x.names[i]
	return nameData{name: x.str(n.name), lower: x.str(n.lower), initials: x.str(n.initials),
		mask: x.masks[i], starts: n.starts}
}

// errTooLarge is returned for an index whose strings do not fit the 32-bit
// offsets of its tables: some 4 GiB of names, signatures and docs, far
// beyond any repository's.
var errTooLarge = errors.New("goindex: the index's strings exceed 4 GiB")

// strTable accumulates the string data of an index being assembled.
type strTable struct {
	b   strings.Builder
	err error
}

func (t *strTable) add(s string) strRef {
	off := t.b.Len()
	if off+len(s) > math.MaxUint32 {
		t.err = errTooLarge
		return strRef{}
	}
	t.b.WriteString(s)
	return strRef{uint32(off), uint32(len(s))}
}

// addFile adds the strings and symbols of f to x.files and x.syms.
func (t *strTable) addFile(x *Index, f *indexedFile) {
	pf := f.pf
	r := fileRec{
		path: t.add(f.path), id: t.add(f.id), importPath: t.add(f.importPath),
		pkgName: t.add(pf.pkgName), pkgDoc: t.add(pf.pkgDoc), constraint: t.add(pf.constraint),
		pkgLine: pf.pkgLine, pkgCol: pf.pkgCol,
		firstSym: int32(len(x.syms)), numSyms: int32(len(pf.syms)),
	}
	if f.test() {
		r.flags |= fileTest
	}
	if pf.parseErr {
		r.flags |= fileParseErr
	}
	x.files = append(x.files, r)
	for i := range pf.syms {
		s := &pf.syms[i]
		x.syms = append(x.syms, symRec{name: t.add(s.name), container: t.add(s.container),
			sig: t.add(s.sig), doc: t.add(s.doc), line: s.line, col: s.col, kind: s.kind, ptrRecv: s.ptrRecv})
	}
}

// parsedFile returns file i as the indexer's blob cache holds files, with
// strings of its own: they outlive the index, whose data may be unmapped.
func (x *Index) parsedFile(i int) (id string, pf *parsedFile) {
	f := &x.files[i]
	clone := func(r strRef) string { return strings.Clone(x.str(r)) }
	pf = &parsedFile{pkgName: clone(f.pkgName), pkgLine: f.pkgLine, pkgCol: f.pkgCol,
		pkgDoc: clone(f.pkgDoc), constraint: clone(f.constraint), parseErr: f.flags&fileParseErr != 0,
		syms: make([]symbol, f.numSyms)}
	for j, s := range x.syms[f.firstSym : f.firstSym+f.numSyms] {
		pf.syms[j] = symbol{name: clone(s.name), container: clone(s.container), kind: s.kind,
			ptrRecv: s.ptrRecv, line: s.line, col: s.col, sig: clone(s.sig), doc: clone(s.doc)}
	}
	return clone(f.id), pf
}

// check reports whether the tables of x are consistent: every reference
// stays within the tables it refers to, so that searching a loaded index
// never indexes out of range.
func (x *Index) check() error {
	n := uint64(len(x.strs))
	ok := func(r strRef) bool { return uint64(r.off)+uint64(r.len) <= n }
	next := int32(0)
	for i := range x.files {
		f := &x.files[i]
		if !ok(f.path) || !ok(f.id) || !ok(f.importPath) || !ok(f.pkgName) || !ok(f.pkgDoc) || !ok(f.constraint) ||
			f.firstSym != next || f.numSyms < 0 || int64(f.firstSym)+int64(f.numSyms) > int64(len(x.syms)) {
			return fmt.Errorf("file %d: %w", i, errCorrupt)
		}
		next += f.numSyms
	}
	if int(next) != len(x.syms) {
		return fmt.Errorf("%d symbols, the files hold %d: %w", len(x.syms), next, errCorrupt)
	}
	for i := range x.syms {
		s := &x.syms[i]
		if !ok(s.name) || !ok(s.container) || !ok(s.sig) || !ok(s.doc) || s.kind == 0 || s.kind >= numKinds {
			return fmt.Errorf("symbol %d: %w", i, errCorrupt)
		}
	}
	for i := range x.entries {
		r := &x.entries[i]
		if uint(r.file) >= uint(len(x.files)) || r.kind == 0 || r.kind >= numKinds ||
			(r.sym < 0) != (r.kind == KindPackage) || r.sym >= x.files[r.file].numSyms {
			return fmt.Errorf("entry %d: %w", i, errCorrupt)
		}
	}
	if len(x.masks) != len(x.names) || len(x.byName) != len(x.entries) {
		return errCorrupt
	}
	for i := range x.names {
		r := &x.names[i]
		if !ok(r.name) || !ok(r.lower) || !ok(r.initials) ||
			r.first < 0 || r.count <= 0 || int64(r.first)+int64(r.count) > int64(len(x.entries)) {
			return fmt.Errorf("name %d: %w", i, errCorrupt)
		}
	}
	for _, e := range x.byName {
		if uint(e) >= uint(len(x.entries)) {
			return errCorrupt
		}
	}
	return checkSlots(x.slots, len(x.names))
}
