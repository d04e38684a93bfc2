package gonav

import (
	"context"
	"errors"
	"go/token"
	"go/types"
	"path"
	"slices"
)

// The index of a repository package is kept in the type store with its
// export data (storedUnit.Index). A process that reads it makes the
// package's files again in its file set from their sizes and line
// offsets, so that positions, lines and columns are as a check's, and
// finds the objects the index names when a query first asks for one.

// stored returns the index as the store keeps it: with its files' sizes
// and lines, which the process that built it reads from its file set.
func (ix *unitIndex) stored() *unitIndex {
	if ix == nil {
		return nil
	}
	out := &unitIndex{Names: ix.Names, ByName: ix.ByName, NameStart: ix.NameStart, Objects: ix.Objects, Idents: ix.Idents, Funcs: ix.Funcs, Imports: ix.Imports, Calls: ix.Calls, LocalTypes: ix.LocalTypes, LocalSets: ix.LocalSets}
	for _, f := range ix.Files {
		lines := f.tf.Lines()
		f.Size, f.Lines = int32(f.tf.Size()), make([]int32, len(lines))
		for i, off := range lines {
			f.Lines[i] = int32(off)
		}
		out.Files = append(out.Files, f)
	}
	return out
}

// readIndex reads a unit's index from its entry when a query first
// needs it: a load reads the entries without their indexes, which were
// a fifth of reading the standard library's entries and most of what it
// kept, and a query needs the indexes of a few packages. The entry read
// again must be the one the unit was read from: its key's, of the same
// files. One that is gone, damaged or another's is warned of, and the
// package is checked again for its index, whose entry is written again
// (checkBodies).
func (l *loader) readIndex(ctx context.Context, n *node, u *unit) (*unitIndex, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, release, err := l.reopen(n, u, true)
	defer release()
	if err != nil {
		l.log.Warn("go_navigate: a package's index on disk is damaged; checking the package again", "package", u.id, "error", err)
		return l.checkBodies(n, u), nil
	}
	return l.attach(n, u, e.Index), nil
}

// reopen reads again the entry unit u of node n was read from, with its
// index when withIndex is set. An entry gone, damaged or another's (other
// files, or no index when one is wanted) is an error. release is never
// nil.
func (l *loader) reopen(n *node, u *unit, withIndex bool) (e *storedUnit, release func(), err error) {
	e, release, err = l.store.open(n.key, withIndex)
	if err == nil && e == nil {
		err = errors.New("the entry is gone")
	}
	if err == nil {
		err = e.fits(n)
	}
	if err == nil && (withIndex && e.Index == nil || !slices.Equal(e.FileNames, u.fileNames)) {
		err = damaged("not the entry the package was read from")
	}
	return e, release, err
}

// attach makes a stored index the unit's: its files are added to the
// loader's file set, and its objects are found in the packages the unit
// sees or, failing that, by checking the node again.
func (l *loader) attach(n *node, u *unit, ix *unitIndex) *unitIndex {
	for i := range ix.Files {
		f := &ix.Files[i]
		f.tf = l.fset.AddFile(f.Name, -1, int(f.Size))
		lines := make([]int, len(f.Lines))
		for j, off := range f.Lines {
			lines[j] = int(off)
		}
		f.tf.SetLines(lines) // the entry's check found them increasing, within the file
		f.Lines = nil
	}
	l.resolveLater(n, u, ix)
	return ix
}

// resolveLater has a unit's index find its objects in the packages the
// unit sees when they are first asked for or, failing that, by checking
// the node again; the objects a check left in it are dropped.
func (l *loader) resolveLater(n *node, u *unit, ix *unitIndex) {
	for i := range ix.Objects {
		ix.Objects[i].obj = nil
	}
	ix.find = func(r *indexObject) types.Object { return l.findObject(n, u, r) }
	ix.recheck = func() *unitIndex {
		l.log.Debug("go_navigate: checking a package again for objects declared in its functions", "package", u.id)
		c, files, info := l.typeCheck(n, indexed)
		return l.buildIndex(c, files, info)
	}
}

// findObject finds an object of a unit's index in the packages the unit
// (of node n) sees: by name in its package's scope, then as a method or
// field of the type so named. It returns nil when the object is not
// there, or what is there is not it (its key differs). Of the units read
// from disk, it decodes the types of the package declaring the object
// only (see lazytypes.go).
func (l *loader) findObject(n *node, u *unit, r *indexObject) types.Object {
	var scope *types.Scope
	var pkg *types.Package
	switch r.Pkg {
	case "":
		scope = types.Universe
	case u.path:
		pkg = u.types()
	default:
		if d := u.dependency(n, r.Pkg); d != nil {
			pkg = d.api()
		}
	}
	if r.Kind == packageName {
		if pkg == nil {
			pkg = types.NewPackage(r.Pkg, path.Base(r.Pkg))
		}
		return types.NewPkgName(token.NoPos, u.types(), r.Top, pkg)
	}
	if pkg != nil {
		scope = pkg.Scope()
	}
	if scope == nil || r.Top == "" {
		return nil
	}
	obj := scope.Lookup(r.Top)
	if obj == nil && r.Pkg == u.path && r.Member == "" {
		obj = u.unexportedObject(r.Top)
	}
	if obj != nil && r.Member != "" {
		obj, _, _ = types.LookupFieldOrMethod(obj.Type(), true, obj.Pkg(), r.Member)
	}
	if obj == nil || objectKey(l.fset, l.tables, obj) != r.Key {
		return nil
	}
	return obj
}
