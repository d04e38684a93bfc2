package goindex

import (
	"slices"
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
	mask     uint64 // the characters it contains (see charMask)
	starts   uint64 // which of its first 64 bytes begin camel-case words
}

func newNameTable() *nameTable {
	return &nameTable{ids: make(map[string]int32)}
}

// internFile sets the name ids of pf. It must run before pf is shared.
func (t *nameTable) internFile(pf *parsedFile) {
	pf.ids = make([]int32, len(pf.syms))
	t.mu.Lock()
	defer t.mu.Unlock()
	pf.pkgID = t.internLocked(pf.pkgName)
	for i := range pf.syms {
		pf.ids[i] = t.internLocked(pf.syms[i].name)
	}
}

func (t *nameTable) internLocked(name string) int32 {
	if id, ok := t.ids[name]; ok {
		return id
	}
	id := int32(len(t.names))
	t.ids[name] = id
	lower := strings.ToLower(name)
	t.names = append(t.names, nameData{name: name, lower: lower, initials: initials(name),
		mask: charMask(lower), starts: wordStarts(name)})
	return id
}

// lookup returns the id of name, if any file declared it.
func (t *nameTable) lookup(name string) (int32, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	id, ok := t.ids[name]
	return id, ok
}

// snapshot returns the names interned so far.
func (t *nameTable) snapshot() []nameData {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.names[:len(t.names):len(t.names)]
}

// groupNames fills x.names and x.byName from the name ids of its entries.
func (x *Index) groupNames() {
	all := x.table.snapshot()
	count := make([]int32, len(all))
	nameOf := make([]int32, len(x.entries))
	for i := range x.entries {
		id := x.nameID(&x.entries[i])
		nameOf[i] = id
		count[id]++
	}
	// The index's names, in id order; count becomes id -> local number.
	// Counted first: appending to a slice of hundreds of thousands of
	// names copies it at every doubling.
	distinct := 0
	for _, n := range count {
		if n > 0 {
			distinct++
		}
	}
	x.names = make([]nameInfo, 0, distinct)
	var next int32
	for id, n := range count {
		if n == 0 {
			count[id] = -1
			continue
		}
		count[id] = int32(len(x.names))
		x.names = append(x.names, nameInfo{nameData: all[id], id: int32(id), first: next, count: n})
		next += n
	}
	x.masks = make([]uint64, len(x.names))
	for i := range x.names {
		x.masks[i] = x.names[i].mask
	}
	x.byName = make([]int32, len(x.entries))
	fill := make([]int32, len(x.names))
	for i, id := range nameOf {
		local := count[id]
		x.byName[x.names[local].first+fill[local]] = int32(i)
		fill[local]++
	}
}

// nameID returns the name id of entry e.
func (x *Index) nameID(e *entryRef) int32 {
	pf := x.files[e.file].pf
	if e.sym < 0 {
		return pf.pkgID
	}
	return pf.ids[e.sym]
}

// lookupName returns the index's number for a declared name.
func (x *Index) lookupName(name string) (int, bool) {
	id, ok := x.table.lookup(name)
	if !ok {
		return 0, false
	}
	return slices.BinarySearchFunc(x.names, id, func(n nameInfo, id int32) int { return int(n.id - id) })
}
