package gonav

import (
	"bytes"
	"maps"
	"slices"
)

// An entry of the type store is encoded by hand, as its index is
// (indexcodec.go): gob sent each entry its types' descriptions and
// compiled a decoder for them, entry after entry, and decoded the
// position tables row by row through reflection; that was a third of
// reading the standard library's entries. The index comes last, as
// bytes, so that a reader can leave it for later.

// entryMagic starts every entry: a file of another format is damaged.
const entryMagic = "gonav types v6\n"

// marshal encodes the entry. The same entry gives the same bytes, so
// processes sharing the directory write the same file under a key.
func (e *storedUnit) marshal() []byte {
	w := &indexWriter{buf: make([]byte, 0, len(entryMagic)+len(e.Export)+len(e.Hidden)+4<<10)}
	w.buf = append(w.buf, entryMagic...)
	w.str(e.Key)
	w.strs(e.Problems)
	w.strs(e.FileNames)
	w.bytes(e.Export)
	w.bytes(e.Hidden)
	names := slices.Sorted(maps.Keys(e.Files))
	w.count(len(names))
	for _, name := range names {
		w.str(name)
		w.count(len(e.Files[name]))
		for _, lc := range e.Files[name] {
			w.ints(lc.Line, lc.Col)
		}
	}
	w.str(e.APIKey)
	w.str(e.Names)
	if e.Index == nil {
		w.count(0)
	} else {
		w.count(1)
		w.bytes(e.Index.encode())
	}
	return w.buf
}

// unmarshalEntry decodes an entry without checking what it says (see
// decodeEntry), and its index only withIndex (else it notes that there
// is one, see storedUnit.indexed). Its export data is data's bytes, not
// a copy.
func unmarshalEntry(data []byte, withIndex bool) (*storedUnit, error) {
	rest, ok := bytes.CutPrefix(data, []byte(entryMagic))
	if !ok {
		return nil, damaged("not an entry of this format")
	}
	r := &indexReader{buf: rest}
	e := &storedUnit{Key: r.str(), Problems: r.strs(), FileNames: r.strs(), Export: r.bytes(), Hidden: r.bytes()}
	if n := r.count(); n > 0 {
		e.Files = make(map[string][]lineCol, n)
		for range n {
			name := r.str()
			table := make([]lineCol, r.count())
			for i := range table {
				table[i] = lineCol{r.int(), r.int()}
			}
			e.Files[name] = table
		}
	}
	e.APIKey = r.str()
	e.Names = r.str()
	var index []byte
	switch r.count() {
	case 0:
	case 1:
		index = r.bytes()
	default:
		r.fail()
	}
	if err := r.end("entry"); err != nil {
		return nil, damaged("%v", err)
	}
	e.hasIndex = index != nil
	if index != nil && withIndex {
		e.Index = new(unitIndex)
		if err := e.Index.decode(index); err != nil {
			return nil, damaged("%v", err)
		}
	}
	return e, nil
}
