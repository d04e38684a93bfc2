package goindex

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"
)

// The payload of a cache file (see diskCache) is an index's tables in the
// form searches use them, in this order:
//
//	revision, options key    strings
//	id                       16 bytes
//	parse failures           uvarint
//	symbols                  uvarint: of all files together
//	files                    uvarint count; each: path, blob id, import path,
//	                         and its parsed file (package clause, doc,
//	                         constraint, parse error, symbols)
//	entries                  uvarint count; each: file u32, symbol u32
//	                         (all ones for a package), kind u8, rank u64
//	names                    uvarint count; each: name, lower case ("" when
//	                         the name is), initials, mask u64, starts u64,
//	                         first u32, count u32
//	byName                   a u32 per entry
//	slots                    uvarint count (a power of two); a u32 each
//
// Strings are a uvarint length and their bytes; fixed-width numbers are
// little-endian. A loaded index's strings are slices of the file's one
// string, and its tables are filled in one pass: nothing is parsed,
// interned, sorted or grouped again.

var errCorrupt = errors.New("corrupt cache file")

// encodeIndex returns the contents of x's cache file, header included.
func encodeIndex(x *Index) []byte {
	e := encoder{buf: make([]byte, headerSize, 1<<20)}
	e.str(x.revision)
	e.str(x.opts.key())
	e.buf = append(e.buf, x.id[:]...)
	e.uint(uint64(x.facts.ParseFailures))
	syms := 0
	for i := range x.files {
		syms += len(x.files[i].pf.syms)
	}
	e.uint(uint64(syms))
	e.uint(uint64(len(x.files)))
	for i := range x.files {
		e.file(&x.files[i])
	}
	e.uint(uint64(len(x.entries)))
	for _, r := range x.entries {
		e.u32(uint32(r.file))
		e.u32(uint32(r.sym))
		e.buf = append(e.buf, byte(r.kind))
		e.u64(r.rank)
	}
	e.uint(uint64(len(x.names)))
	for i := range x.names {
		n := &x.names[i]
		e.str(n.name)
		if n.lower == n.name {
			e.str("")
		} else {
			e.str(n.lower)
		}
		e.str(n.initials)
		e.u64(n.mask)
		e.u64(n.starts)
		e.u32(uint32(n.first))
		e.u32(uint32(n.count))
	}
	for _, v := range x.byName {
		e.u32(uint32(v))
	}
	e.uint(uint64(len(x.slots)))
	for _, v := range x.slots {
		e.u32(uint32(v))
	}
	h := header(e.buf[headerSize:])
	copy(e.buf, h[:])
	return e.buf
}

func (e *encoder) file(f *indexedFile) {
	e.str(f.path)
	e.str(f.id)
	e.str(f.importPath)
	pf := f.pf
	e.str(pf.pkgName)
	e.uint(uint64(pf.pkgLine))
	e.uint(uint64(pf.pkgCol))
	e.str(pf.pkgDoc)
	e.str(pf.constraint)
	e.bool(pf.parseErr)
	e.uint(uint64(len(pf.syms)))
	for j := range pf.syms {
		s := &pf.syms[j]
		e.str(s.name)
		e.str(s.container)
		e.uint(uint64(s.kind))
		e.bool(s.ptrRecv)
		e.uint(uint64(s.line))
		e.uint(uint64(s.col))
		e.str(s.sig)
		e.str(s.doc)
	}
}

// header returns the header of a payload.
func header(payload []byte) [headerSize]byte {
	var h [headerSize]byte
	copy(h[:], diskMagic)
	binary.LittleEndian.PutUint32(h[4:], diskVersion)
	binary.LittleEndian.PutUint64(h[8:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(h[16:], crc32.Checksum(payload, castagnoli))
	return h
}

// checkHeader reports whether h is the header of a payload of this version
// with n bytes and checksum sum.
func checkHeader(h []byte, n int, sum uint32) bool {
	return len(h) == headerSize && string(h[:4]) == diskMagic &&
		binary.LittleEndian.Uint32(h[4:]) == diskVersion &&
		binary.LittleEndian.Uint64(h[8:]) == uint64(n) &&
		binary.LittleEndian.Uint32(h[16:]) == sum
}

// decodeIndex decodes the payload of a cache file whose header was
// checked, checking that it is of rev and opts, and consistent: a loaded
// index never indexes out of its own tables.
func decodeIndex(payload, rev string, opts Options) (x *Index, err error) {
	d := decoder{s: payload}
	defer func() {
		if recover() != nil { // a bound check failed: checksummed but malformed
			x, err = nil, errCorrupt
		}
	}()
	if d.str() != rev || d.str() != opts.key() {
		return nil, errCorrupt
	}
	x = &Index{revision: rev, opts: opts}
	copy(x.id[:], d.raw(len(x.id)))
	x.facts = Facts{Revision: rev, ParseFailures: int(d.uint()), From: FromDisk}
	// The files' symbols and parsed files are one allocation each, not
	// one per file: a loaded index keeps all of them anyway.
	d.syms = make([]symbol, d.count(8))
	x.files = make([]indexedFile, d.count(4))
	pfs := make([]parsedFile, len(x.files))
	for i := range x.files {
		if err := d.file(&x.files[i], &pfs[i]); err != nil {
			return nil, err
		}
	}
	if len(d.syms) != 0 {
		return nil, errCorrupt
	}
	if err := d.entries(x); err != nil {
		return nil, err
	}
	if err := d.names(x); err != nil {
		return nil, err
	}
	if err := d.slots(x); err != nil {
		return nil, err
	}
	if d.s != "" {
		return nil, errCorrupt
	}
	x.facts.Files, x.facts.Symbols = len(x.files), len(x.entries)
	return x, nil
}

// file decodes one file into f and pf, taking its symbols from d.syms.
func (d *decoder) file(f *indexedFile, pf *parsedFile) error {
	*f = indexedFile{path: d.str(), id: d.str(), importPath: d.str(), pf: pf}
	*pf = parsedFile{pkgName: d.str(), pkgLine: int32(d.uint()), pkgCol: int32(d.uint())}
	pf.pkgDoc, pf.constraint, pf.parseErr = d.str(), d.str(), d.bool()
	n := d.count(8)
	if n > len(d.syms) {
		return errCorrupt
	}
	pf.syms, d.syms = d.syms[:n:n], d.syms[n:]
	for j := range pf.syms {
		s := &pf.syms[j]
		s.name, s.container = d.str(), d.str()
		s.kind = Kind(d.uint())
		s.ptrRecv = d.bool()
		s.line, s.col = int32(d.uint()), int32(d.uint())
		s.sig, s.doc = d.str(), d.str()
		if s.kind == 0 || s.kind >= numKinds {
			return errCorrupt
		}
	}
	return nil
}

// entries decodes x.entries, checking that each names a symbol of a file.
func (d *decoder) entries(x *Index) error {
	x.entries = make([]entryRef, d.count(17))
	for i := range x.entries {
		r := entryRef{file: int32(d.u32()), sym: int32(d.u32()), kind: Kind(d.byte()), rank: d.u64()}
		if uint(r.file) >= uint(len(x.files)) || r.kind == 0 || r.kind >= numKinds ||
			(r.sym < 0) != (r.kind == KindPackage) ||
			r.sym >= 0 && int(r.sym) >= len(x.files[r.file].pf.syms) {
			return errCorrupt
		}
		x.entries[i] = r
	}
	return nil
}

// names decodes x.names, x.masks and x.byName, checking that the groups
// hold entries.
func (d *decoder) names(x *Index) error {
	x.names = make([]nameInfo, d.count(4*1+8+8+4+4))
	x.masks = make([]uint64, len(x.names))
	for i := range x.names {
		n := &x.names[i]
		n.name, n.lower, n.initials = d.str(), d.str(), d.str()
		if n.lower == "" {
			n.lower = n.name
		}
		n.mask, n.starts = d.u64(), d.u64()
		n.first, n.count = int32(d.u32()), int32(d.u32())
		if n.first < 0 || n.count <= 0 || int64(n.first)+int64(n.count) > int64(len(x.entries)) {
			return errCorrupt
		}
		x.masks[i] = n.mask
	}
	x.byName = make([]int32, len(x.entries))
	for i := range x.byName {
		v := d.u32()
		if v >= uint32(len(x.entries)) {
			return errCorrupt
		}
		x.byName[i] = int32(v)
	}
	return nil
}

// slots decodes x.slots, checking that probing ends: the table is a power
// of two, holds every name once at most, and has empty slots.
func (d *decoder) slots(x *Index) error {
	x.slots = make([]int32, d.count(4))
	if bits.OnesCount(uint(len(x.slots))) != 1 || len(x.slots) <= len(x.names) {
		return errCorrupt
	}
	used := 0
	for i := range x.slots {
		v := d.u32()
		if v > uint32(len(x.names)) {
			return errCorrupt
		}
		if v != 0 {
			used++
		}
		x.slots[i] = int32(v)
	}
	if used != len(x.names) {
		return errCorrupt
	}
	return nil
}

type encoder struct{ buf []byte }

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) u32(v uint32)  { e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }
func (e *encoder) u64(v uint64)  { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.buf = append(e.buf, s...) }
func (e *encoder) bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// decoder reads what encoder wrote. It panics on input too short for what
// it reads; decodeIndex recovers.
type decoder struct {
	s    string
	syms []symbol // the symbols the files still to decode take theirs from
}

func (d *decoder) uint() uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		c := d.s[0]
		d.s = d.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 || shift > 63 {
			return v
		}
	}
}

func (d *decoder) raw(n int) string {
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.s)) {
		panic(errCorrupt)
	}
	return d.raw(int(n))
}

func (d *decoder) byte() byte {
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func (d *decoder) u32() uint32 {
	s := d.raw(4)
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func (d *decoder) u64() uint64 {
	return uint64(d.u32()) | uint64(d.u32())<<32
}

func (d *decoder) bool() bool { return d.uint() != 0 }

// count reads a length, checking it against the bytes left (each element
// takes at least minSize bytes) so that a bad length cannot allocate much.
func (d *decoder) count(minSize int) int {
	n := d.uint()
	if n > uint64(len(d.s)/max(1, minSize))+1 {
		panic(errCorrupt)
	}
	return int(n)
}
