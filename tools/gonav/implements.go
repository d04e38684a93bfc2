package gonav

import (
	"context"
	"go/types"
)

// implementations answers, for an interface, the named types that
// implement it (T or *T) and the interfaces that hold its methods; for
// a concrete type, the interfaces it implements; for a method of either,
// the corresponding methods. Candidates come from every package loaded,
// dependencies included, and, as gopls finds them, from the types
// declared in the functions of the target's own package. Interfaces with
// no methods (any) are left out: everything implements them.
func (p *program) implementations(ctx context.Context, t *target) ([]Location, error) {
	if err := p.ensureAll(ctx); err != nil {
		return nil, err
	}
	objs, err := p.implementers(ctx, t)
	if err != nil {
		return nil, err
	}
	var out []Location
	for _, obj := range objs {
		loc := p.location(obj.Pos(), kindOf(obj), pkgPath(obj))
		loc.Name = qualified(obj)
		out = append(out, loc)
	}
	return out, nil
}

// implementers returns the objects implementations answers with:
// candidates from the repository's packages, and from the dependencies
// the target's package imports, directly or not, narrowed by method
// name (methodIndex).
func (p *program) implementers(ctx context.Context, t *target) ([]types.Object, error) {
	tn, _ := typeOf(t.obj)
	if tn == nil {
		return nil, nil
	}
	return p.implementersAmong(ctx, t, p.methods().candidates(tn))
}

// implementersAmong returns implementers' answer among the named types
// at the positions cands of p.namedTypes(), given in increasing order,
// and the types declared in the functions of the target's package:
// those are few, and the method index leaves them out.
func (p *program) implementersAmong(ctx context.Context, t *target, cands []int32) ([]types.Object, error) {
	tn, method := typeOf(t.obj)
	if iface, isIface := tn.Type().Underlying().(*types.Interface); isIface && iface.NumMethods() == 0 {
		return nil, nil
	}
	seen := map[string]bool{p.key(tn): true}
	var out []types.Object
	seenFrom := t.unit.imports()
	named := p.namedTypes()
	candidates := make([]namedType, 0, len(cands))
	for _, i := range cands {
		candidates = append(candidates, named[i])
	}
	if n, ok := tn.Type().(*types.Named); ok {
		local, err := p.localTypes(ctx, pathOf(tn), localSetOf(n))
		if err != nil {
			return nil, err
		}
		candidates = append(candidates, local...)
	}
	for _, nt := range candidates {
		// Dependencies count only where the target's package sees them,
		// as gopls counts them: an interface of a package it does not
		// import is no contract it was written for.
		u, cand := nt.unit, nt.obj
		if (!u.local && seenFrom[u.path] == nil) || seen[nt.key] || (nt.inFunc && u.path != pathOf(tn)) || !relates(tn, t.unit, nt) {
			continue
		}
		seen[nt.key] = true
		obj := types.Object(cand)
		if method != "" {
			m, _, _ := types.LookupFieldOrMethod(cand.Type(), true, cand.Pkg(), method)
			if m == nil || p.key(m) == p.key(t.obj) {
				continue // an interface embedding the target's
			}
			obj = m
		}
		out = append(out, obj)
	}
	return out, nil
}

// relates reports whether the named type tn of unit tu and a candidate
// are implementations of each other, as implementations counts them:
// the candidate implements tn, an interface, or tn implements the
// candidate, an interface with methods.
func relates(tn *types.TypeName, tu *unit, nt namedType) bool {
	iface, isIface := tn.Type().Underlying().(*types.Interface)
	switch candIface := nt.iface; {
	case isIface && candIface != nil:
		return candIface.NumMethods() >= iface.NumMethods() && implements(nt.unit, nt.obj, tn, tu)
	case isIface:
		return implements(nt.unit, nt.obj, tn, tu)
	case candIface != nil:
		return candIface.NumMethods() > 0 && implements(tu, tn, nt.obj, nt.unit)
	}
	return false
}

// typeOf returns the named type a target is or whose method it is, and
// the method's name.
func typeOf(obj types.Object) (*types.TypeName, string) {
	switch o := obj.(type) {
	case *types.TypeName:
		if n, ok := types.Unalias(o.Type()).(*types.Named); ok {
			return n.Obj(), ""
		}
	case *types.Func:
		recv := o.Signature().Recv()
		if recv == nil {
			return nil, ""
		}
		// An interface method's receiver is the interface type.
		if n := namedOf(recv.Type()); n != nil {
			return n.Obj(), o.Name()
		}
	}
	return nil, ""
}

// implements reports whether the type typ, declared in unit tu,
// implements the interface iface, declared in unit iu. The two may come
// from different test variants of one package, whose types differ: each
// is looked up as the other's unit sees it first. A type declared in a
// function comes from a check of its package run again for it (see
// unitIndex.object), whose declarations are not the unit's: a type of
// that package at package level is looked up as that check declares it.
func implements(tu *unit, typ *types.TypeName, iface *types.TypeName, iu *unit) bool {
	T := typ.Type()
	I := iface.Type()
	local := pathOf(typ) == pathOf(iface) && typ.Pkg() != iface.Pkg()
	switch {
	case local && !packageLevel(typ) && packageLevel(iface):
		I = typeIn(typ.Pkg(), iface, I)
	case local && !packageLevel(iface) && packageLevel(typ):
		T = typeIn(iface.Pkg(), typ, T)
	default:
		if pkg, ok := tu.imports()[pathOf(iface)]; ok && pkg != iface.Pkg() && packageLevel(iface) {
			I = typeIn(pkg, iface, I)
		} else if pkg, ok := iu.imports()[pathOf(typ)]; ok && pkg != typ.Pkg() && packageLevel(typ) {
			T = typeIn(pkg, typ, T)
		}
	}
	in, ok := I.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	if types.IsInterface(T) {
		return types.Implements(T, in)
	}
	return types.Implements(T, in) || types.Implements(types.NewPointer(T), in)
}

// typeIn returns the type pkg declares under tn's name, or t when it
// declares none.
func typeIn(pkg *types.Package, tn *types.TypeName, t types.Type) types.Type {
	if o, ok := pkg.Scope().Lookup(tn.Name()).(*types.TypeName); ok {
		return o.Type()
	}
	return t
}

// packageLevel reports whether a type is declared at package level, where
// another variant of its package declares it under the same name.
func packageLevel(tn *types.TypeName) bool {
	return tn.Pkg() != nil && tn.Parent() == tn.Pkg().Scope()
}

func pathOf(tn *types.TypeName) string {
	if tn.Pkg() == nil {
		return ""
	}
	return tn.Pkg().Path()
}
