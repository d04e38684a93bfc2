package gonav

import (
	"errors"
	"go/types"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// A unit read from the type store has its export data decoded when its
// types are first asked for, not when the load reads its entry: a query
// reads most repository packages through their indexes alone, which
// name objects by key, and finds objects (findObject) in the few
// packages that declare what it looks at. In the standard library,
// references of strings.Builder read 639 entries, and decoding them all
// was two fifths of what the first answer kept live with the caches
// filled (docs/perf.md). The load reads what keys and answers need
// without decoding: the API key, the problems, the file names, and the
// package-level names a symbol's lookup looks for (mayDeclare).
//
// Decoding a unit decodes its dependencies first (importsOf asks for
// their API packages), so that every package decoded finds those it
// imports in the import map, as the load's eager decoding did; the
// dependency graph has no cycle, so units decoding at once never wait
// for each other in a circle.

// unitTypes is a unit's type information: its package, what importers
// import (see unit.api), and for a repository package read from disk
// what its export data leaves out (see hiddenDecls).
type unitTypes struct {
	types, api, hidden *types.Package
}

// lazyTypes decodes a unit's types when first asked for (see unit.types).
type lazyTypes struct {
	ready  atomic.Bool // no decoding is pending: the unit's types are set
	mu     sync.Mutex
	decode func() unitTypes // pending; nil when none is
}

// types returns the unit's package, decoding it first when the unit
// was read from disk and nothing asked for its types yet.
func (u *unit) types() *types.Package { u.settleTypes(); return u.t.types }

// api returns the package importers import: the types of the first
// unit with the same API key (see cutoff.go), which may be an earlier
// revision's.
func (u *unit) api() *types.Package { u.settleTypes(); return u.t.api }

// hidden returns, for a repository package read from disk, what its
// export data leaves out (see hiddenDecls and unexportedObject).
func (u *unit) hidden() *types.Package { u.settleTypes(); return u.t.hidden }

// decodeLater has the unit's types set by decode when first asked for.
// It is called before the unit is published (its node done).
func (u *unit) decodeLater(decode func() unitTypes) {
	u.lazy.decode = decode
}

// typesDecoded reports whether the unit's types are set, without
// decoding them.
func (u *unit) typesDecoded() bool {
	u.lazy.mu.Lock()
	defer u.lazy.mu.Unlock()
	return u.lazy.decode == nil
}

// settleTypes decodes the unit's types if that is pending, once,
// however many ask at once.
func (u *unit) settleTypes() {
	if u.lazy.ready.Load() {
		return
	}
	u.lazy.mu.Lock()
	defer u.lazy.mu.Unlock()
	if u.lazy.decode != nil {
		u.t = u.lazy.decode()
		u.lazy.decode = nil // what it holds (the node, and so the load's graph) can go
	}
	u.lazy.ready.Store(true)
}

// readTypes decodes the types of a unit the load read from the store
// without them (see read): its entry is read again, and must be the one
// the unit was read from. One that is gone, damaged or another's is
// warned of and removed, so that the next process checks the package and
// writes its entry again; one the file system fails to read (an I/O
// error, which may pass) is warned of and kept. Either way the package
// is checked here for its declarations, whose types the unit keeps.
func (l *loader) readTypes(n *node, u *unit) unitTypes {
	imports, direct := importsOf(n) // decodes the dependencies first
	pkg, hidden, err := l.decodeStored(n, u, imports, direct)
	if err != nil {
		l.dropEntry(n, u, err)
		c, _, _ := l.typeCheck(n, declarations)
		pkg, hidden = c.t.types, nil // the check's scope holds the unexported objects
	}
	t := unitTypes{types: pkg, api: l.cache.api(u.apiKey, pkg)}
	if n.local {
		t.hidden = hidden
	}
	return t
}

// dropEntry warns that a unit's entry could not be used, for err, and
// removes it unless err is the file system's failing to read it.
func (l *loader) dropEntry(n *node, u *unit, err error) {
	if pathErr := (*fs.PathError)(nil); errors.As(err, &pathErr) {
		l.log.Warn("go_navigate: a package's type information on disk cannot be read; checking it again", "package", u.id, "error", err)
		return
	}
	l.log.Warn("go_navigate: a package's type information on disk is damaged; checking it again", "package", u.id, "error", err)
	if rmErr := os.Remove(l.store.path(n.key)); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		l.log.Warn("go_navigate: a damaged entry cannot be removed", "package", u.id, "error", rmErr)
	}
}

// decodeStored reads a unit's entry again and decodes its export data.
func (l *loader) decodeStored(n *node, u *unit, imports map[string]*types.Package, direct []*types.Package) (pkg, hidden *types.Package, err error) {
	e, release, err := l.reopen(n, u, false)
	defer release()
	if err != nil {
		return nil, nil, err
	}
	return decode(l.fset, e, u.path, imports, direct, l.tables)
}

// declaredNames returns the names a checked package declares at package
// level, for its entry (storedUnit.Names): the check's scope holds the
// unexported functions, variables and constants too, which export data
// leaves out and unexportedObject makes.
func declaredNames(pkg *types.Package) string {
	if pkg == nil {
		return ""
	}
	return "\n" + strings.Join(pkg.Scope().Names(), "\n") + "\n"
}

// mayDeclare reports whether the unit's package may declare name at
// package level, without decoding its types: a unit whose types are
// decoded (or were checked) is looked in; one read from disk declares
// the names its entry lists.
func (u *unit) mayDeclare(name string) bool {
	return u.typesDecoded() || strings.Contains(u.names, "\n"+name+"\n")
}

// hasTypes reports whether the unit has types, decoded or still to be
// (a failed decoding checks the package, which gives them), without
// decoding them.
func (u *unit) hasTypes() bool {
	u.lazy.mu.Lock()
	defer u.lazy.mu.Unlock()
	return u.lazy.decode != nil || u.t.types != nil
}
