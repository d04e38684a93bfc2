package gonav

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"
)

// unitIndex is what the relations read of a repository package checked
// with function bodies, in place of its syntax and types.Info: a check
// builds it and drops both, which were most of a loaded program's
// memory. Positions are byte offsets in the unit's files; the objects
// named are a table the identifiers and calls point into, so a unit
// holds one entry per object however often it is named.
type unitIndex struct {
	Files   []indexFile
	Names   []string // identifiers' names
	Objects []indexObject
	// Idents are the unit's identifiers, by file and offset.
	Idents []indexIdent
	// Funcs are the declared functions, by file and offset: the
	// enclosing function of an identifier or a call.
	Funcs   []indexFunc
	Imports []indexImport
	Calls   []indexCall
	// LocalTypes are the type names declared in function bodies.
	LocalTypes []int32
}

// indexFile is one file of a unit.
type indexFile struct {
	Name   string // display name, as the file set knows it
	Clause int32  // offset of the package clause's name
	tf     *token.File
}

// indexObject is an object the unit declares or uses.
type indexObject struct {
	Key string // program.key's
	obj types.Object
}

// noRef marks an absent object or function.
const noRef = -1

// indexIdent is one identifier.
type indexIdent struct {
	File, Off int32
	Name      int32 // Names
	Def, Use  int32 // Objects, or noRef: what types.Info records
	Func      int32 // Funcs: the function declared around it, or noRef
	Clause    bool  // the package clause's name
}

// indexFunc is a declared function, its body included.
type indexFunc struct {
	File, Start, End int32
	Name             string // qualified
	Obj              int32  // Objects, or noRef
}

// indexImport is an import spec.
type indexImport struct {
	File, Off int32 // of the path
	Path      string
}

// indexCall is a call of a function or method the check resolved.
type indexCall struct {
	File, Off int32 // where the callee is named
	Lparen    int32
	Callee    int32 // Objects
	Caller    int32 // Objects: the declared function around it, or noRef
	Dynamic   bool  // Callee is an interface method
}

// indexBuilder builds a unit's index from its syntax and types.Info.
type indexBuilder struct {
	ix    *unitIndex
	key   func(types.Object) string
	objs  map[types.Object]int32
	names map[string]int32
}

// buildIndex indexes a checked unit; key names objects as program.key
// does.
func buildIndex(fset *token.FileSet, u *unit, files []*ast.File, info *types.Info, key func(types.Object) string) *unitIndex {
	b := &indexBuilder{ix: &unitIndex{}, key: key, objs: map[types.Object]int32{}, names: map[string]int32{}}
	for i, f := range files {
		tf := fset.File(f.FileStart)
		b.ix.Files = append(b.ix.Files, indexFile{Name: u.fileNames[i], Clause: int32(tf.Offset(f.Name.Pos())), tf: tf})
		b.file(int32(i), tf, f, u, info)
	}
	slices.SortStableFunc(b.ix.Idents, func(a, c indexIdent) int {
		return cmp.Or(cmp.Compare(a.File, c.File), cmp.Compare(a.Off, c.Off))
	})
	for id, obj := range info.Defs {
		if tn, ok := obj.(*types.TypeName); ok && tn.Parent() != nil && tn.Parent() != u.types.Scope() && id.Pos().IsValid() {
			b.ix.LocalTypes = append(b.ix.LocalTypes, b.object(tn))
		}
	}
	slices.SortFunc(b.ix.LocalTypes, func(a, c int32) int { return int(b.ix.Objects[a].obj.Pos() - b.ix.Objects[c].obj.Pos()) })
	return b.ix
}

// file indexes one file's functions, identifiers, imports and calls.
func (b *indexBuilder) file(fi int32, tf *token.File, f *ast.File, u *unit, info *types.Info) {
	off := func(p token.Pos) int32 { return int32(tf.Offset(p)) }
	first := int32(len(b.ix.Funcs))
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			fn := indexFunc{File: fi, Start: off(fd.Pos()), End: off(fd.End()), Name: u.path + "." + fd.Name.Name, Obj: noRef}
			if obj := info.Defs[fd.Name]; obj != nil {
				fn.Name, fn.Obj = qualified(obj), b.object(obj)
			}
			b.ix.Funcs = append(b.ix.Funcs, fn)
		}
	}
	funcs := b.ix.Funcs[first:]
	around := func(p token.Pos) int32 {
		o := off(p)
		i, found := slices.BinarySearchFunc(funcs, o, func(fn indexFunc, o int32) int {
			switch {
			case fn.End <= o:
				return -1
			case fn.Start > o:
				return 1
			}
			return 0
		})
		if !found {
			return noRef
		}
		return first + int32(i)
	}
	for _, spec := range f.Imports {
		b.ix.Imports = append(b.ix.Imports, indexImport{File: fi, Off: off(spec.Path.Pos()), Path: importPath(spec)})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			id := indexIdent{File: fi, Off: off(n.Pos()), Name: b.name(n.Name), Def: noRef, Use: noRef, Func: around(n.Pos()), Clause: n == f.Name}
			if obj := info.Defs[n]; obj != nil {
				id.Def = b.object(obj)
			}
			if obj := info.Uses[n]; obj != nil {
				id.Use = b.object(obj)
			}
			b.ix.Idents = append(b.ix.Idents, id)
		case *ast.CallExpr:
			fn, ok := typeutil.Callee(info, n).(*types.Func)
			if !ok {
				break
			}
			c := indexCall{File: fi, Off: off(calleePos(n)), Lparen: off(n.Lparen), Callee: b.object(fn), Caller: noRef}
			if encl := around(n.Pos()); encl != noRef {
				c.Caller = b.ix.Funcs[encl].Obj
			}
			if recv := fn.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
				c.Dynamic = true
			}
			b.ix.Calls = append(b.ix.Calls, c)
		}
		return true
	})
}

func (b *indexBuilder) object(obj types.Object) int32 {
	if i, ok := b.objs[obj]; ok {
		return i
	}
	i := int32(len(b.ix.Objects))
	b.ix.Objects = append(b.ix.Objects, indexObject{Key: b.key(obj), obj: obj})
	b.objs[obj] = i
	return i
}

func (b *indexBuilder) name(s string) int32 {
	if i, ok := b.names[s]; ok {
		return i
	}
	i := int32(len(b.ix.Names))
	b.ix.Names = append(b.ix.Names, s)
	b.names[s] = i
	return i
}

// pos returns the position of an offset in one of the unit's files.
func (ix *unitIndex) pos(file, off int32) token.Pos {
	return ix.Files[file].tf.Pos(int(off))
}

// object returns the object at i of the table, nil for noRef.
func (ix *unitIndex) object(i int32) types.Object {
	if i == noRef {
		return nil
	}
	return ix.Objects[i].obj
}

// key returns the key of the object at i of the table, "" for noRef.
func (ix *unitIndex) key(i int32) string {
	if i == noRef {
		return ""
	}
	return ix.Objects[i].Key
}

// enclosing returns the name of the function declared around an
// identifier or call, "" at package level.
func (ix *unitIndex) enclosing(fn int32) string {
	if fn == noRef {
		return ""
	}
	return ix.Funcs[fn].Name
}

// identAt returns the identifier of a file covering an offset, or
// noRef: the one starting at or before it, up to its end.
func (ix *unitIndex) identAt(file, off int32) int32 {
	i, _ := slices.BinarySearchFunc(ix.Idents, [2]int32{file, off + 1}, func(id indexIdent, t [2]int32) int {
		if id.File != t[0] {
			return int(id.File - t[0])
		}
		return int(id.Off - t[1])
	})
	if i == 0 {
		return noRef
	}
	id := ix.Idents[i-1]
	if id.File != file || off > id.Off+int32(len(ix.Names[id.Name])) {
		return noRef
	}
	return int32(i - 1)
}
