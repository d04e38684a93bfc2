package gonav

import (
	"context"
	"go/types"
	"slices"
)

// methodIndex narrows implementations' candidates by method name, so a
// query checks types.Implements for the few named types that may
// implement or be implemented by its target, not for every type of every
// loaded package (thousands in the standard library). A name stands for
// every method of that name, whatever its package: the index only ever
// leaves out types that cannot match, and each candidate is still
// checked.
type methodIndex struct {
	// byMethod lists, by method name, the named types whose method set
	// (a concrete type's *T's, promoted methods included) has a method
	// of that name: the types that may implement an interface with it.
	byMethod map[string][]int32
	// byFirst lists, by method name, the interfaces whose first method is
	// of that name: every method of an interface a type implements is
	// in the type's method set, its first one too.
	byFirst map[string][]int32
}

// methods returns the program's method index; positions are those of
// p.namedTypes().
func (p *program) methods() *methodIndex {
	p.buildQueryTables(context.Background())
	return p.methodIx
}

// indexMethods indexes named types by their methods' names, unless ctx
// ends first.
func indexMethods(ctx context.Context, named []namedType) (*methodIndex, error) {
	ix := &methodIndex{byMethod: map[string][]int32{}, byFirst: map[string][]int32{}}
	for i, nt := range named {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		names := methodNames(nt)
		for _, name := range names {
			ix.byMethod[name] = append(ix.byMethod[name], int32(i))
		}
		if nt.iface != nil && len(names) > 0 {
			ix.byFirst[names[0]] = append(ix.byFirst[names[0]], int32(i))
		}
	}
	return ix, nil
}

// methodNames lists the names of a named type's methods: an interface's
// in its method set's order, a concrete type's as *T has them.
func methodNames(nt namedType) []string {
	var names []string
	if nt.iface != nil {
		for m := range nt.iface.Methods() {
			names = append(names, m.Name())
		}
		return names
	}
	n := nt.obj.Type().(*types.Named)
	if !embeds(n) { // its declared methods are all it has: spare a method set
		for m := range n.Methods() {
			names = append(names, m.Name())
		}
		return names
	}
	for sel := range types.NewMethodSet(types.NewPointer(n)).Methods() {
		names = append(names, sel.Obj().Name())
	}
	return names
}

// embeds reports whether a named type is a struct with embedded fields,
// whose methods it is given.
func embeds(n *types.Named) bool {
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range st.Fields() {
		if f.Embedded() {
			return true
		}
	}
	return false
}

// candidates returns, in namedTypes order, the named types that may be
// implementations of the named type tn: for an interface, the types
// with a method of its rarest method's name; for a concrete type, the
// interfaces whose first method's name its method set has.
func (ix *methodIndex) candidates(tn *types.TypeName) []int32 {
	if iface, ok := tn.Type().Underlying().(*types.Interface); ok {
		var rarest []int32
		for i := range iface.NumMethods() {
			if l := ix.byMethod[iface.Method(i).Name()]; i == 0 || len(l) < len(rarest) {
				rarest = l
			}
		}
		return rarest
	}
	var out []int32
	for sel := range types.NewMethodSet(types.NewPointer(tn.Type())).Methods() {
		out = append(out, ix.byFirst[sel.Obj().Name()]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
