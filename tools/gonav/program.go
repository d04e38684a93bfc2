package gonav

import (
	"bytes"
	"context"
	"fmt"
	"go/token"
	"go/types"
	"strings"
	"sync"
	"sync/atomic"
)

// program is the type information of one export: the packages go list
// reported, its repository packages with full type information, checked
// as queries need them (see deferred).
type program struct {
	fset   *token.FileSet
	tables *posTables // of the files of packages read from the store
	roots  roots
	set    atomic.Pointer[unitSet] // the units checked so far
	lazy   *deferred               // every node, checked or not
	total  int                     // packages listed
	// listFailed says why go list could not run: the units are then the
	// repository's directories, checked without their imports.
	listFailed string
	checked    int
	workers    int // build the indexes a query needs (indexesOf)

	callsMu sync.Mutex
	calls   *callIndex // built by callGraph

	// queryMu guards named and methodIx, which prepareQueries builds
	// (see there). life is the program's while the service keeps it:
	// stopPrepare ends it, and the background builds with it.
	queryMu      sync.Mutex
	named        []namedType
	methodIx     *methodIndex
	life         context.Context
	stopPrepare  context.CancelFunc
	beforeTables func(context.Context) // see prepareQueries
	tablesOnce   sync.Once             // starts buildQueryTables
	restOnce     sync.Once             // starts indexRest

	filesMu sync.Mutex
	lines   map[string][][]byte // display name -> lines, for results' text
}

// key names a declaration across packages and test variants: the same
// declaration checked twice (p and p [p.test], or a package and the API
// an earlier revision's check left to its importers) yields two objects
// at one line and column. Not the offset: an edit inside a function
// body before a declaration moves its offset but leaves the API, hence
// the importers' units, as it was (see cutoff.go).
func (p *program) key(obj types.Object) string {
	return objectKey(p.fset, p.tables, obj)
}

// objectKey is program.key's, for a loader's file set and tables.
func objectKey(fset *token.FileSet, tables *posTables, obj types.Object) string {
	if obj == nil {
		return ""
	}
	if pn, ok := obj.(*types.PkgName); ok {
		return "package " + pn.Imported().Path()
	}
	obj = origin(obj)
	if !obj.Pos().IsValid() {
		return "builtin " + obj.Name()
	}
	pos := tables.position(fset, obj.Pos())
	return fmt.Sprintf("%s:%d:%d:%s", pos.Filename, pos.Line, pos.Column, obj.Name())
}

// origin returns the generic declaration of an instantiated object.
func origin(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		return o.Origin()
	}
	return obj
}

// location renders a position as a result, without its line's text:
// withText adds that to the results a page returns.
func (p *program) location(pos token.Pos, kind, pkg string) Location {
	ps := p.position(pos)
	return Location{
		File: ps.Filename, Line: ps.Line, Column: ps.Column, Kind: kind, Package: pkg,
		Test: strings.HasSuffix(ps.Filename, "_test.go"),
	}
}

// position returns where pos is, in a file checked or read from the
// store alike.
func (p *program) position(pos token.Pos) token.Position {
	return p.tables.position(p.fset, pos)
}

// maxLineText bounds the text of a result's line.
const maxLineText = 512

// lineText returns a line of a file a result names ("" when it cannot be
// read).
func (p *program) lineText(file string, line int) string {
	p.filesMu.Lock()
	defer p.filesMu.Unlock()
	lines, ok := p.lines[file]
	if !ok {
		data, err := p.roots.readFile(file)
		if err == nil {
			lines = bytes.Split(data, []byte("\n"))
		}
		if p.lines == nil {
			p.lines = map[string][][]byte{}
		}
		p.lines[file] = lines
	}
	if line < 1 || line > len(lines) {
		return ""
	}
	t := bytes.TrimRight(lines[line-1], "\r")
	if len(t) > maxLineText {
		t = t[:maxLineText]
	}
	return string(t)
}

// forget drops the lines read for results: a page's text is read again
// for the next.
func (p *program) forget() {
	p.filesMu.Lock()
	p.lines = nil
	p.filesMu.Unlock()
}

// qualified names an object as search_symbol does: pkg.Name,
// pkg.Type.Method, pkg.Type.Field, with the package's import path.
func qualified(obj types.Object) string {
	if pn, ok := obj.(*types.PkgName); ok {
		return pn.Imported().Path()
	}
	prefix := ""
	if obj.Pkg() != nil {
		prefix = obj.Pkg().Path() + "."
	}
	if fn, ok := obj.(*types.Func); ok {
		if recv := fn.Signature().Recv(); recv != nil {
			if n := namedOf(recv.Type()); n != nil {
				return prefix + n.Obj().Name() + "." + fn.Name()
			}
		}
	}
	if v, ok := obj.(*types.Var); ok && v.IsField() {
		if owner := fieldOwner(v); owner != "" {
			return prefix + owner + "." + v.Name()
		}
	}
	return prefix + obj.Name()
}

// fieldOwner returns the name of the package-level struct type declaring
// a field, "" when there is none.
func fieldOwner(v *types.Var) string {
	if v.Pkg() == nil {
		return ""
	}
	scope := v.Pkg().Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for f := range st.Fields() {
				if f == v || f.Origin() == v.Origin() {
					return tn.Name()
				}
			}
		}
	}
	return ""
}

// namedOf returns the named type of t or *t.
func namedOf(t types.Type) *types.Named {
	if ptr, ok := types.Unalias(t).(*types.Pointer); ok {
		t = ptr.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// kindOf says what a declared object is.
func kindOf(obj types.Object) string {
	switch o := obj.(type) {
	case *types.PkgName:
		return "package"
	case *types.Func:
		if o.Signature().Recv() != nil {
			return "method"
		}
		return "func"
	case *types.Var:
		if o.IsField() {
			return "field"
		}
		return "var"
	case *types.Const:
		return "const"
	case *types.TypeName:
		if types.IsInterface(o.Type()) {
			return "interface"
		}
		return "type"
	}
	return "object"
}
