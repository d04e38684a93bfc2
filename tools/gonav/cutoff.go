package gonav

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/gcexportdata"
)

// A package's key covers its files and its direct dependencies' API
// keys, not their whole keys: an edit inside a function body, or of
// anything a package does not export, changes the package's key but not
// its API key, so its importers are not checked again (early cutoff).
//
// An API key is a hash of the package's export data (its exported
// declarations and everything they reach, positions included) and of its
// dependencies' API keys. The export data hashed is the entry's, whose
// positions are recoded (positions.go), with the real line and column of
// every object it declares: the entry's export is then the only one
// written (exporting was a sixth of a second revision's checks). Equal API keys mean importers see the same
// declarations at the same lines and columns, so the importers' units
// checked against the earlier package stay valid. Importers import the
// unit's api package, which is shared by every unit with the same API
// key: a program's packages then see one universe of types, however many
// revisions their units were checked in.

// keyOf returns a node's key; its dependencies are done.
func keyOf(n *node) string {
	h := sha256.New()
	h.Write(n.files)
	for _, d := range n.deps {
		fmt.Fprintf(h, "dep\x00%s\x00%s\x00", d.lp.ImportPath, d.unit.apiKey)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// apiKeyOf returns a checked unit's API key when its entry could not be
// made or read back (see apiKeyOfEntry), from export data it writes.
// Only the repository's packages are exported to compute it: the others'
// files do not change under a key, so their key serves.
func apiKeyOf(fset *token.FileSet, u *unit, deps []*node) string {
	h := sha256.New()
	fmt.Fprintf(h, "api\x00%s\x00", u.id)
	var data bytes.Buffer
	if !u.local || u.types() == nil || gcexportdata.Write(&data, fset, u.types()) != nil {
		fmt.Fprintf(h, "key\x00%s\x00", u.key)
		return hex.EncodeToString(h.Sum(nil))
	}
	sum := sha256.Sum256(data.Bytes())
	fmt.Fprintf(h, "export\x00%x\x00", sum)
	for _, d := range deps {
		fmt.Fprintf(h, "dep\x00%s\x00%s\x00", d.lp.ImportPath, d.unit.apiKey)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// apiKeyOfEntry returns a unit's API key from its entry e and pkg, the
// package read back from it: the entry's export data and the real
// positions of the objects pkg declares, which the entry's position
// tables give. The others' key serves, as in apiKeyOf.
func apiKeyOfEntry(fset *token.FileSet, u *unit, pkg *types.Package, e *storedUnit, deps []*node) string {
	if !u.local {
		return apiKeyOf(fset, u, deps)
	}
	h := sha256.New()
	fmt.Fprintf(h, "api\x00%s\x00", u.id)
	sum := sha256.Sum256(e.Export)
	fmt.Fprintf(h, "recoded\x00%x\x00", sum)
	declaredPositions(pkg, func(obj types.Object) {
		pos := obj.Pos()
		tf := fset.File(pos)
		if tf == nil {
			return
		}
		line := tf.Line(pos)
		if table := e.Files[tf.Name()]; line >= 1 && line <= len(table) {
			fmt.Fprintf(h, "pos\x00%s\x00%s\x00%d:%d\x00", obj.Name(), tf.Name(), table[line-1].Line, table[line-1].Col)
		}
	})
	for _, d := range deps {
		fmt.Fprintf(h, "dep\x00%s\x00%s\x00", d.lp.ImportPath, d.unit.apiKey)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// declaredPositions calls visit with each object of pkg whose position
// export data holds: its exported package-level objects, and the
// methods, fields, parameters, results and type parameters of the types
// they reach, in a fixed order. Objects of other packages are left out: their own API
// keys cover them.
func declaredPositions(pkg *types.Package, visit func(types.Object)) {
	seen := map[types.Type]bool{}
	obj := func(o types.Object) {
		if o != nil && o.Pkg() == pkg {
			visit(o)
		}
	}
	var typ func(t types.Type)
	tuple := func(t *types.Tuple) {
		for v := range t.Variables() {
			obj(v)
			typ(v.Type())
		}
	}
	tparams := func(l *types.TypeParamList) {
		for tp := range l.TypeParams() {
			typ(tp)
		}
	}
	typ = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if t.Obj().Pkg() != pkg {
				for a := range t.TypeArgs().Types() {
					typ(a)
				}
				return
			}
			obj(t.Obj())
			tparams(t.TypeParams())
			for m := range t.Methods() {
				obj(m)
				typ(m.Type())
			}
			typ(t.Underlying())
		case *types.Alias:
			obj(t.Obj())
			tparams(t.TypeParams())
			typ(t.Rhs())
		case *types.TypeParam:
			obj(t.Obj())
			typ(t.Constraint())
		case *types.Signature:
			if r := t.Recv(); r != nil {
				obj(r)
			}
			tparams(t.TypeParams())
			tuple(t.Params())
			tuple(t.Results())
		case *types.Struct:
			for f := range t.Fields() {
				obj(f)
				typ(f.Type())
			}
		case *types.Interface:
			for m := range t.ExplicitMethods() {
				obj(m)
				typ(m.Type())
			}
			for e := range t.EmbeddedTypes() {
				typ(e)
			}
		case *types.Union:
			for term := range t.Terms() {
				typ(term.Type())
			}
		case *types.Pointer:
			typ(t.Elem())
		case *types.Slice:
			typ(t.Elem())
		case *types.Array:
			typ(t.Elem())
		case *types.Chan:
			typ(t.Elem())
		case *types.Map:
			typ(t.Key())
			typ(t.Elem())
		}
	}
	// The package read back declares its unexported types too (see
	// decode), which importers do not see unless an exported one reaches
	// them.
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if o := scope.Lookup(name); o.Exported() {
			obj(o)
			typ(o.Type())
		}
	}
}
