package gonav

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A unit's index is most of a repository package's entry, and its
// tables are long: gob encoded each row field by field through
// reflection, which was a sixth of a second revision's CPU. The index
// encodes itself instead, as varints table by table, and the entry
// holds it as bytes (entrycodec.go). Decoding checks only that the bytes
// hold the tables; the entry's check (entrycheck.go) then checks what
// they say.

// encode encodes the index's tables.
func (ix *unitIndex) encode() []byte {
	w := &indexWriter{}
	w.count(len(ix.Files))
	for _, f := range ix.Files {
		w.str(f.Name)
		w.ints(f.Clause, f.Size)
		w.int32s(f.Lines)
	}
	w.count(len(ix.Names))
	for _, s := range ix.Names {
		w.str(s)
	}
	w.int32s(ix.ByName)
	w.int32s(ix.NameStart)
	w.count(len(ix.Objects))
	for i := range ix.Objects {
		// By pointer: a copy would read obj, which the checking process
		// clears (resolveLater) while the entry is written.
		o := &ix.Objects[i]
		w.str(o.Key)
		w.str(o.Pkg)
		w.str(o.Top)
		w.str(o.Member)
		w.ints(int32(o.Kind))
	}
	w.count(len(ix.Idents))
	for _, id := range ix.Idents {
		w.ints(id.File, id.Off, id.Name, id.Def, id.Use, id.Func, bit(id.Clause))
	}
	w.count(len(ix.Funcs))
	for _, fn := range ix.Funcs {
		w.ints(fn.File, fn.Start, fn.End, fn.Obj)
		w.str(fn.Name)
	}
	w.count(len(ix.Imports))
	for _, im := range ix.Imports {
		w.ints(im.File, im.Off)
		w.str(im.Path)
	}
	w.count(len(ix.Calls))
	for _, c := range ix.Calls {
		w.ints(c.File, c.Off, c.Lparen, c.Callee, c.Caller, bit(c.Dynamic))
	}
	w.int32s(ix.LocalTypes)
	w.count(len(ix.LocalSets))
	for _, set := range ix.LocalSets {
		w.ints(bit(set.Iface))
		w.count(len(set.Names))
		for _, name := range set.Names {
			w.str(name)
		}
	}
	return w.buf
}

// decode decodes what encode wrote.
func (ix *unitIndex) decode(data []byte) error {
	r := &indexReader{buf: data}
	ix.Files = make([]indexFile, r.count())
	for i := range ix.Files {
		f := &ix.Files[i]
		f.Name, f.Clause, f.Size, f.Lines = r.str(), r.int(), r.int(), r.int32s()
	}
	ix.Names = make([]string, r.count())
	for i := range ix.Names {
		ix.Names[i] = r.str()
	}
	ix.ByName, ix.NameStart = r.int32s(), r.int32s()
	ix.Objects = make([]indexObject, r.count())
	for i := range ix.Objects {
		o := &ix.Objects[i]
		o.Key, o.Pkg, o.Top, o.Member = r.str(), r.str(), r.str(), r.str()
		kind := r.int()
		if kind < 0 || kind > math.MaxUint8 {
			r.fail()
		}
		o.Kind = objectKind(kind)
	}
	ix.Idents = make([]indexIdent, r.count())
	for i := range ix.Idents {
		id := &ix.Idents[i]
		id.File, id.Off, id.Name, id.Def, id.Use, id.Func, id.Clause = r.int(), r.int(), r.int(), r.int(), r.int(), r.int(), r.int() != 0
	}
	ix.Funcs = make([]indexFunc, r.count())
	for i := range ix.Funcs {
		fn := &ix.Funcs[i]
		fn.File, fn.Start, fn.End, fn.Obj, fn.Name = r.int(), r.int(), r.int(), r.int(), r.str()
	}
	ix.Imports = make([]indexImport, r.count())
	for i := range ix.Imports {
		im := &ix.Imports[i]
		im.File, im.Off, im.Path = r.int(), r.int(), r.str()
	}
	ix.Calls = make([]indexCall, r.count())
	for i := range ix.Calls {
		c := &ix.Calls[i]
		c.File, c.Off, c.Lparen, c.Callee, c.Caller, c.Dynamic = r.int(), r.int(), r.int(), r.int(), r.int(), r.int() != 0
	}
	ix.LocalTypes = r.int32s()
	ix.LocalSets = make([]localSet, r.count())
	for i := range ix.LocalSets {
		set := &ix.LocalSets[i]
		set.Iface = r.int() != 0
		set.Names = make([]string, r.count())
		for j := range set.Names {
			set.Names[j] = r.str()
		}
	}
	return r.end("index")
}

func bit(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// indexWriter appends varints.
type indexWriter struct{ buf []byte }

func (w *indexWriter) count(n int) { w.buf = binary.AppendUvarint(w.buf, uint64(n)) }

func (w *indexWriter) ints(vs ...int32) {
	for _, v := range vs {
		w.buf = binary.AppendVarint(w.buf, int64(v))
	}
}

func (w *indexWriter) int32s(vs []int32) {
	w.count(len(vs))
	w.ints(vs...)
}

func (w *indexWriter) str(s string) {
	w.count(len(s))
	w.buf = append(w.buf, s...)
}

func (w *indexWriter) bytes(b []byte) {
	w.count(len(b))
	w.buf = append(w.buf, b...)
}

func (w *indexWriter) strs(ss []string) {
	w.count(len(ss))
	for _, s := range ss {
		w.str(s)
	}
}

// indexReader reads what indexWriter wrote; after the first error it
// reads zeros, and err says what went wrong.
type indexReader struct {
	buf []byte
	err error
}

var errShortIndex = errors.New("the index's bytes end early or hold a number out of range")

func (r *indexReader) fail() {
	if r.err == nil {
		r.err = errShortIndex
	}
	r.buf = nil
}

// count reads a table's length: every row takes a byte at least, so a
// length past the bytes left is damage, refused before anything is
// allocated for it.
func (r *indexReader) count() int {
	n, k := binary.Uvarint(r.buf)
	if k <= 0 || n > uint64(len(r.buf)-k) {
		r.fail()
		return 0
	}
	r.buf = r.buf[k:]
	return int(n)
}

func (r *indexReader) int() int32 {
	v, k := binary.Varint(r.buf)
	if k <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		r.fail()
		return 0
	}
	r.buf = r.buf[k:]
	return int32(v)
}

func (r *indexReader) int32s() []int32 {
	n := r.count()
	if n == 0 {
		return nil
	}
	vs := make([]int32, n)
	for i := range vs {
		vs[i] = r.int()
	}
	return vs
}

func (r *indexReader) str() string {
	return string(r.bytes())
}

// bytes returns the next bytes written by indexWriter.bytes, in place.
func (r *indexReader) bytes() []byte {
	n := r.count()
	b := r.buf[:n:n]
	r.buf = r.buf[n:]
	return b
}

func (r *indexReader) strs() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = r.str()
	}
	return ss
}

// end returns the error of what was read, one when bytes are left.
func (r *indexReader) end(what string) error {
	if r.err == nil && len(r.buf) > 0 {
		r.err = fmt.Errorf("%d bytes after the %s", len(r.buf), what)
	}
	return r.err
}
