package gonav

import (
	"errors"
	"fmt"
	"slices"
)

// An entry of the type store is decoded (entrycodec.go) and then indexed by number
// everywhere: an identifier's file, object and name, a call's callee, a
// file's offsets. Our writes are atomic, so only a damaged file, or one
// another program put in a shared cache directory, can be inconsistent;
// such an entry must be a miss (the package is checked and the entry
// written again), never a query's panic, and never a way to make results
// name a file outside the roots. check and fits say whether an entry
// holds together before anything reads it.

// errDamaged says an entry decodes but does not hold together, or is
// not the entry of the package it is read for.
var errDamaged = errors.New("damaged type store entry")

// damaged returns errDamaged with what is wrong.
func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errDamaged, fmt.Sprintf(format, args...))
}

// check reports whether an entry read under key holds together: its key,
// its position tables, and its index's tables.
func (e *storedUnit) check(key string) error {
	if e.Key != key {
		return damaged("entry of key %.12s read under %.12s", e.Key, key)
	}
	for name, table := range e.Files {
		for _, lc := range table {
			if lc.Line < 1 || lc.Col < 1 {
				return damaged("position %d:%d in %s", lc.Line, lc.Col, name)
			}
		}
	}
	if e.Index == nil {
		return nil
	}
	if len(e.Index.Files) != len(e.FileNames) {
		return damaged("an index of %d files for %d file names", len(e.Index.Files), len(e.FileNames))
	}
	for i, f := range e.Index.Files {
		if f.Name != e.FileNames[i] {
			return damaged("index file %d is %q, not %q", i, f.Name, e.FileNames[i])
		}
	}
	return e.Index.check()
}

// fits reports whether an entry that holds together is the one of the
// node it is read for: a repository package's has its API key, and its
// index when the package is checked in full; its files are the node's
// (the key covers their names, so any other name is a foreign entry's,
// which results would show).
func (e *storedUnit) fits(n *node) error {
	if n.local && e.APIKey == "" {
		return damaged("a repository package's entry without an API key")
	}
	if n.local && e.indexed() != n.full {
		return damaged("an index present %t for a package checked in full %t", e.indexed(), n.full)
	}
	rest := n.names
	for _, name := range e.FileNames {
		i := slices.Index(rest, name)
		if i < 0 {
			return damaged("file %q is not one of the package's, in order", name)
		}
		rest = rest[i+1:]
	}
	return nil
}

// check reports whether every number of the index points into the table
// or file it names, and the tables the queries search are sorted.
func (ix *unitIndex) check() error {
	for i, f := range ix.Files {
		if err := f.check(); err != nil {
			return fmt.Errorf("file %d: %w", i, err)
		}
	}
	if err := ix.checkNames(); err != nil {
		return err
	}
	objects, funcs := int32(len(ix.Objects)), int32(len(ix.Funcs))
	for i, o := range ix.Objects {
		if o.Kind > packageName {
			return damaged("object %d of kind %d", i, o.Kind)
		}
	}
	for i, id := range ix.Idents {
		if err := ix.checkAt(id.File, id.Off, int64(len(ix.Names[id.Name]))); err != nil {
			return fmt.Errorf("identifier %d: %w", i, err)
		}
		if !ref(id.Def, objects) || !ref(id.Use, objects) || !ref(id.Func, funcs) {
			return damaged("identifier %d refers to object %d, %d or function %d", i, id.Def, id.Use, id.Func)
		}
		if i > 0 && !identBefore(ix.Idents[i-1], id) {
			return damaged("identifier %d out of order", i)
		}
	}
	for i, fn := range ix.Funcs {
		if err := ix.checkAt(fn.File, fn.Start, int64(fn.End)-int64(fn.Start)); err != nil {
			return fmt.Errorf("function %d: %w", i, err)
		}
		if !ref(fn.Obj, objects) {
			return damaged("function %d refers to object %d", i, fn.Obj)
		}
	}
	for i, im := range ix.Imports {
		if err := ix.checkAt(im.File, im.Off, 1); err != nil {
			return fmt.Errorf("import %d: %w", i, err)
		}
	}
	for i, c := range ix.Calls {
		if err := errors.Join(ix.checkAt(c.File, c.Off, 1), ix.checkAt(c.File, c.Lparen, 1)); err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
		if c.Callee < 0 || !ref(c.Callee, objects) || !ref(c.Caller, objects) {
			return damaged("call %d refers to object %d or %d", i, c.Callee, c.Caller)
		}
	}
	for i, o := range ix.LocalTypes {
		if o < 0 || o >= objects {
			return damaged("local type %d is object %d", i, o)
		}
	}
	if len(ix.LocalSets) != len(ix.LocalTypes) {
		return damaged("%d method sets of %d local types", len(ix.LocalSets), len(ix.LocalTypes))
	}
	return nil
}

// check reports whether a file's offsets fit in it, as attach's SetLines
// needs them: increasing, and before its end.
func (f *indexFile) check() error {
	if f.Size < 0 || f.Clause < 0 || f.Clause >= f.Size || len(f.Lines) == 0 {
		return damaged("size %d, package clause at %d", f.Size, f.Clause)
	}
	for i, off := range f.Lines {
		if off >= f.Size || (i > 0 && off <= f.Lines[i-1]) || (i == 0 && off != 0) {
			return damaged("line %d at %d", i+1, off)
		}
	}
	return nil
}

// checkNames reports whether the names are sorted and unique, and the
// groups of identifiers by name are the identifiers of that name.
func (ix *unitIndex) checkNames() error {
	for i := 1; i < len(ix.Names); i++ {
		if ix.Names[i-1] >= ix.Names[i] {
			return damaged("name %d out of order", i)
		}
	}
	names, idents := int32(len(ix.Names)), int32(len(ix.Idents))
	for i, id := range ix.Idents {
		if id.Name < 0 || id.Name >= names {
			return damaged("identifier %d has name %d", i, id.Name)
		}
	}
	if len(ix.NameStart) != len(ix.Names)+1 || ix.NameStart[0] != 0 || ix.NameStart[names] != idents || len(ix.ByName) != len(ix.Idents) {
		return damaged("%d group starts and %d identifiers by name for %d names and %d identifiers", len(ix.NameStart), len(ix.ByName), names, idents)
	}
	for name := range names {
		start, end := ix.NameStart[name], ix.NameStart[name+1]
		if end < start || end > idents {
			return damaged("group %d from %d to %d", name, start, end)
		}
		for _, i := range ix.ByName[start:end] {
			if i < 0 || i >= idents || ix.Idents[i].Name != name {
				return damaged("group %d holds identifier %d", name, i)
			}
		}
	}
	return nil
}

// checkAt reports whether n bytes at an offset of a file are in it.
func (ix *unitIndex) checkAt(file, off int32, n int64) error {
	if file < 0 || int(file) >= len(ix.Files) {
		return damaged("file %d of %d", file, len(ix.Files))
	}
	if off < 0 || n < 0 || int64(off)+n > int64(ix.Files[file].Size) {
		return damaged("%d bytes at %d in a file of %d", n, off, ix.Files[file].Size)
	}
	return nil
}

// ref reports whether i is noRef or an index of a table of n.
func ref(i, n int32) bool { return i == noRef || (i >= 0 && i < n) }

// identBefore reports whether a comes before b in the identifiers'
// order, by file and offset; no two start at one offset.
func identBefore(a, b indexIdent) bool {
	return a.File < b.File || (a.File == b.File && a.Off < b.Off)
}
