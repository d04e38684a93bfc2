package goindex

import (
	"math/bits"
	"strings"
	"sync"
)

// nameTable interns the declared names an Indexer has seen: each distinct
// name gets an id and its matching data (lower case, initials, character
// mask) once, when the first file declaring it is parsed. Parsed files
// carry the ids of their names, so assembling an index groups entries by
// name with arrays instead of a map. The table only grows; its entries are
// never changed once added, so readers that got an id may read its data
// without the lock.
type nameTable struct {
	mu    sync.RWMutex
	ids   map[string]int32
	names []nameData
}

// nameData is what matching needs of a name.
type nameData struct {
	name     string
	lower    string
	initials string // lower-case initials of its camel-case words
	mask     uint64 // the characters it contains, and its first (see nameMask)
	starts   uint64 // which of its first 64 bytes begin camel-case words
}

func newNameTable() *nameTable {
	return &nameTable{ids: make(map[string]int32)}
}

// internFile sets the name ids of pf. It must run before pf is shared.
func (t *nameTable) internFile(pf *parsedFile) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.internLocked(pf)
}

// internFiles sets the name ids of the files that lack them. Files loaded
// from disk enter the blob cache without ids (a loaded index needs none),
// and get them here when a build reuses them. Ids are set and read under
// t.mu, so a file shared by concurrent builds is interned once.
func (t *nameTable) internFiles(files []indexedFile) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range files {
		if files[i].pf.ids == nil {
			t.internLocked(files[i].pf)
		}
	}
}

func (t *nameTable) internLocked(pf *parsedFile) {
	ids := make([]int32, len(pf.syms))
	pf.pkgID = t.internNameLocked(pf.pkgName)
	for i := range pf.syms {
		ids[i] = t.internNameLocked(pf.syms[i].name)
	}
	pf.ids = ids
}

func (t *nameTable) internNameLocked(name string) int32 {
	if id, ok := t.ids[name]; ok {
		return id
	}
	id := int32(len(t.names))
	t.ids[name] = id
	lower := strings.ToLower(name)
	t.names = append(t.names, nameData{name: name, lower: lower, initials: initials(name),
		mask: nameMask(lower), starts: wordStarts(name)})
	return id
}

// snapshot returns the names interned so far.
func (t *nameTable) snapshot() []nameData {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.names[:len(t.names):len(t.names)]
}

// groupNames fills x.names, x.byName, x.masks and x.slots from all, the
// names interned so far, and nameOf, the name id of each entry. The names'
// strings go to strs, which it sizes for them and another more bytes.
func (x *Index) groupNames(all []nameData, nameOf []int32, strs *strTable, more int) {
	count := make([]int32, len(all))
	for _, id := range nameOf {
		count[id]++
	}
	// The index's names, in id order; count becomes id -> local number.
	// Counted first: appending to a slice of hundreds of thousands of
	// names copies it at every doubling.
	distinct, size := 0, more
	for id, n := range count {
		if n > 0 {
			distinct++
			size += len(all[id].name) + len(all[id].lower) + len(all[id].initials)
		}
	}
	strs.b.Grow(size)
	x.names = make([]nameRec, 0, distinct)
	x.masks = make([]uint64, 0, distinct)
	var next int32
	for id, n := range count {
		if n == 0 {
			count[id] = -1
			continue
		}
		count[id] = int32(len(x.names))
		d := &all[id]
		r := nameRec{starts: d.starts, name: strs.add(d.name), initials: strs.add(d.initials), first: next, count: n}
		r.lower = r.name
		if d.lower != d.name {
			r.lower = strs.add(d.lower)
		}
		x.names = append(x.names, r)
		x.masks = append(x.masks, d.mask)
		next += n
	}
	x.byName = make([]int32, len(x.entries))
	fill := make([]int32, len(x.names))
	for i, id := range nameOf {
		local := count[id]
		x.byName[x.names[local].first+fill[local]] = int32(i)
		fill[local]++
	}
	x.slots = nameSlots(x.names, func(r strRef) string { return strs.b.String()[r.off : r.off+r.len] })
}

// nameSlots returns an open-addressing hash table of names (linear
// probing, a power of two of slots, at most half full): a slot holds a
// name's number plus one, 0 when empty. The index stores it on disk as it
// is, so that a loaded index looks names up without building a map.
func nameSlots(names []nameRec, str func(strRef) string) []int32 {
	n := 2
	for n < 2*len(names) {
		n <<= 1
	}
	slots := make([]int32, n)
	mask := uint32(n - 1)
	for i := range names {
		h := hashName(str(names[i].name)) & mask
		for slots[h] != 0 {
			h = (h + 1) & mask
		}
		slots[h] = int32(i + 1)
	}
	return slots
}

// checkSlots reports whether slots is a table nameSlots could have made for
// names names: lookups in it end.
func checkSlots(slots []int32, names int) error {
	if bits.OnesCount(uint(len(slots))) != 1 || len(slots) <= names {
		return errCorrupt
	}
	used := 0
	for _, v := range slots {
		if uint32(v) > uint32(names) {
			return errCorrupt
		}
		if v != 0 {
			used++
		}
	}
	if used != names {
		return errCorrupt
	}
	return nil
}

// hashName is 32-bit FNV-1a: stable across processes, since its values
// are stored on disk.
func hashName(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// lookupName returns the index's number for a declared name.
func (x *Index) lookupName(name string) (int, bool) {
	mask := uint32(len(x.slots) - 1)
	for h := hashName(name) & mask; ; h = (h + 1) & mask {
		s := x.slots[h]
		if s == 0 {
			return 0, false
		}
		if x.str(x.names[s-1].name) == name {
			return int(s - 1), true
		}
	}
}
