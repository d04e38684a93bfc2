package gonav

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sync"
)

// unitIndex is what the relations read of a repository package checked
// with function bodies, in place of its syntax and types.Info: a check
// builds it and drops both, which were most of a loaded program's
// memory. Positions are byte offsets in the unit's files; the objects
// named are a table the identifiers and calls point into, so a unit
// holds one entry per object however often it is named.
type unitIndex struct {
	Files []indexFile
	// Names are the identifiers' names, sorted; the identifiers named
	// Names[i] are ByName[NameStart[i]:NameStart[i+1]], indices of
	// Idents in order.
	Names     []string
	ByName    []int32
	NameStart []int32
	Objects   []indexObject
	// Idents are the unit's identifiers, by file and offset.
	Idents []indexIdent
	// Funcs are the declared functions, by file and offset: the
	// enclosing function of an identifier or a call.
	Funcs   []indexFunc
	Imports []indexImport
	Calls   []indexCall
	// LocalTypes are the named types declared in function bodies, and
	// LocalSets their method sets: implementations decides by them which
	// are worth finding (a unit read from disk is checked again for
	// them).
	LocalTypes []int32
	LocalSets  []localSet

	// A unit read from disk finds its objects when they are first asked
	// for (see object).
	mu      sync.Mutex
	find    func(*indexObject) types.Object
	recheck func() *unitIndex
	checked bool // recheck ran
}

// indexFile is one file of a unit.
type indexFile struct {
	Name   string // display name, as the file set knows it
	Clause int32  // offset of the package clause's name
	// Size and Lines (the offsets of its lines) make the file again in a
	// process that reads the index from disk; kept only there.
	Size  int32
	Lines []int32
	tf    *token.File
}

// indexObject is an object the unit declares or uses. A unit read from
// disk finds it again by Pkg, Top and Member in the packages it sees
// (see resolve.go's resolveObject); in the process that checked the unit,
// obj is the check's.
type indexObject struct {
	Key string // program.key's
	// Pkg is the import path of the package declaring it ("" for the
	// universe's); for an imported package's name, that package's.
	Pkg string
	// Top is the package-level name it is, or whose method or field it
	// is; "" when it is declared in a function, or in a type that has no
	// package-level name.
	Top, Member string
	Kind        objectKind
	obj         types.Object
}

// objectKind tells the objects the relations look at apart without
// finding them.
type objectKind uint8

const (
	otherObject objectKind = iota
	methodObject
	packageName
)

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
	// owners are the package-level struct types of fields, by package.
	owners map[*types.Package]map[*types.Var]string
}

// buildIndex indexes a checked unit; key names objects as program.key
// does.
func buildIndex(fset *token.FileSet, u *unit, files []*ast.File, info *types.Info, key func(types.Object) string) *unitIndex {
	b := &indexBuilder{ix: &unitIndex{}, key: key, objs: map[types.Object]int32{}, names: map[string]int32{}, owners: map[*types.Package]map[*types.Var]string{}}
	// The check records nearly every identifier once, in Defs or Uses
	// (the package clause's name too, with no object): sized so, the
	// table neither grows while it is filled nor is copied after, which
	// were over a third of indexing a package.
	b.ix.Idents = make([]indexIdent, 0, len(info.Defs)+len(info.Uses))
	for i, f := range files {
		tf := fset.File(f.FileStart)
		b.ix.Files = append(b.ix.Files, indexFile{Name: u.fileNames[i], Clause: int32(tf.Offset(f.Name.Pos())), tf: tf})
		b.file(int32(i), tf, f, u, info)
	}
	slices.SortStableFunc(b.ix.Idents, func(a, c indexIdent) int {
		return cmp.Or(cmp.Compare(a.File, c.File), cmp.Compare(a.Off, c.Off))
	})
	// Appending left up to half of Objects unused.
	b.ix.Objects = slices.Clone(b.ix.Objects)
	if unused := cap(b.ix.Idents) - len(b.ix.Idents); unused > len(b.ix.Idents)/8 {
		b.ix.Idents = slices.Clone(b.ix.Idents)
	}
	b.ix.groupNames()
	type local struct {
		obj int32
		set localSet
	}
	var locals []local
	for id, obj := range info.Defs {
		// What implementations may answer with: named types, not type
		// parameters, aliases or generic types.
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.Parent() == nil || tn.Parent() == u.types().Scope() || tn.IsAlias() || !id.Pos().IsValid() {
			continue
		}
		if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() == 0 {
			locals = append(locals, local{b.object(tn), localSetOf(n)})
		}
	}
	slices.SortFunc(locals, func(a, c local) int { return int(b.ix.Objects[a.obj].obj.Pos() - b.ix.Objects[c.obj].obj.Pos()) })
	for _, l := range locals {
		b.ix.LocalTypes = append(b.ix.LocalTypes, l.obj)
		b.ix.LocalSets = append(b.ix.LocalSets, l.set)
	}
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
			fn := calleeOf(info, n)
			if fn == nil {
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

// calleeOf returns the function or method a call calls statically, as
// typeutil.Callee does, without the types of every expression, which
// are the largest part of a check's information: f[T](x) instantiates
// a function where f is one; a[i](x) calls an element of a variable.
func calleeOf(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch d := fun.(type) {
	case *ast.IndexExpr:
		fun = ast.Unparen(d.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(d.X)
	}
	var id *ast.Ident
	switch e := fun.(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

func (b *indexBuilder) object(obj types.Object) int32 {
	if i, ok := b.objs[obj]; ok {
		return i
	}
	i := int32(len(b.ix.Objects))
	r := b.locate(obj)
	r.Key, r.obj = b.key(obj), obj
	b.ix.Objects = append(b.ix.Objects, r)
	b.objs[obj] = i
	return i
}

// locate says where a unit read from disk finds obj again: by name in
// its package's scope, or as a method or field of a package-level type.
func (b *indexBuilder) locate(obj types.Object) indexObject {
	if pn, ok := obj.(*types.PkgName); ok {
		return indexObject{Pkg: pn.Imported().Path(), Top: pn.Name(), Kind: packageName}
	}
	obj = origin(obj)
	r := indexObject{Pkg: pkgPath(obj)}
	if fn, ok := obj.(*types.Func); ok && fn.Signature().Recv() != nil {
		r.Kind = methodObject
	}
	switch {
	case obj.Pkg() == nil || obj.Parent() == obj.Pkg().Scope():
		r.Top = obj.Name()
	case r.Kind == methodObject:
		if n := namedOf(obj.(*types.Func).Signature().Recv().Type()); n != nil && packageLevel(n.Obj()) {
			r.Top, r.Member = n.Obj().Name(), obj.Name()
		}
	default:
		if v, ok := obj.(*types.Var); ok && v.IsField() {
			if owner := b.fieldOwner(v); owner != "" {
				r.Top, r.Member = owner, v.Name()
			}
		}
	}
	return r
}

// fieldOwner is the package-level struct type declaring a field, ""
// when there is none; it indexes a package's struct fields once.
func (b *indexBuilder) fieldOwner(v *types.Var) string {
	owners, ok := b.owners[v.Pkg()]
	if !ok {
		owners = map[*types.Var]string{}
		scope := v.Pkg().Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok {
				if st, ok := tn.Type().Underlying().(*types.Struct); ok {
					for f := range st.Fields() {
						owners[f.Origin()] = tn.Name()
					}
				}
			}
		}
		b.owners[v.Pkg()] = owners
	}
	return owners[v.Origin()]
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

// groupNames sorts Names and groups the identifiers by name.
func (ix *unitIndex) groupNames() {
	order := make([]int32, len(ix.Names)) // old name ids, sorted by name
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(ix.Names[a], ix.Names[b]) })
	renamed := make([]int32, len(ix.Names))
	sorted := make([]string, len(ix.Names))
	for newID, old := range order {
		renamed[old], sorted[newID] = int32(newID), ix.Names[old]
	}
	ix.Names = sorted
	ix.NameStart = make([]int32, len(ix.Names)+1)
	for i := range ix.Idents {
		ix.Idents[i].Name = renamed[ix.Idents[i].Name]
		ix.NameStart[ix.Idents[i].Name+1]++
	}
	for i := range ix.Names {
		ix.NameStart[i+1] += ix.NameStart[i]
	}
	ix.ByName = make([]int32, len(ix.Idents))
	next := slices.Clone(ix.NameStart[:len(ix.Names)])
	for i, id := range ix.Idents {
		ix.ByName[next[id.Name]] = int32(i)
		next[id.Name]++
	}
}

// named returns the identifiers of a name, as indices of Idents.
func (ix *unitIndex) named(name string) []int32 {
	i, ok := slices.BinarySearch(ix.Names, name)
	if !ok {
		return nil
	}
	return ix.ByName[ix.NameStart[i]:ix.NameStart[i+1]]
}

// method returns the object at i of the table when it is a method, nil
// otherwise: what related_reference looks at, without finding every
// other object of the name (a unit read from disk may have to be
// checked again to find a local one).
func (ix *unitIndex) method(i int32) types.Object {
	if i == noRef || ix.Objects[i].Kind != methodObject {
		return nil
	}
	return ix.object(i)
}

// pos returns the position of an offset in one of the unit's files.
func (ix *unitIndex) pos(file, off int32) token.Pos {
	return ix.Files[file].tf.Pos(int(off))
}

// object returns the object at i of the table, nil for noRef. A unit
// read from disk finds it in the packages it sees, by name; one declared
// in a function (a local variable, a type) is not there, and the unit is
// then checked again, once, for all of them.
func (ix *unitIndex) object(i int32) types.Object {
	if i == noRef {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	r := &ix.Objects[i]
	if r.obj == nil && ix.find != nil {
		r.obj = ix.find(r)
		if r.obj == nil && !ix.checked && ix.recheck != nil {
			ix.checked = true
			ix.fill(ix.recheck())
		}
	}
	return r.obj
}

// fill takes the objects not found yet from the index of a new check
// of the unit, by key.
func (ix *unitIndex) fill(checked *unitIndex) {
	if checked == nil {
		return
	}
	byKey := make(map[string]types.Object, len(checked.Objects))
	for _, r := range checked.Objects {
		byKey[r.Key] = r.obj
	}
	for i := range ix.Objects {
		if ix.Objects[i].obj == nil {
			ix.Objects[i].obj = byKey[ix.Objects[i].Key]
		}
	}
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
