package gonav

import (
	"go/types"
)

// relatedMethods returns, for a method, whether a use in unit u of the
// object obj is a use of a related method: one of the same name whose
// receiver implements the target's, or is implemented by it. gopls counts
// these among a method's references, for a call through an interface may
// reach the method, and a method's caller may hold the interface. As in
// gopls, a related method counts everywhere when its type is a named
// type of the repository's packages, and only in the target's own
// package otherwise (an interface of a dependency, an interface literal).
// For anything but a method it returns a function that reports false.
func (p *program) relatedMethods(target types.Object) func(u *unit, obj types.Object) bool {
	recv := effectiveReceiver(target)
	if recv == nil {
		return func(*unit, types.Object) bool { return false }
	}
	home := pkgPath(target)
	type relation struct{ related, local bool }
	memo := map[*types.Func]relation{}
	return func(u *unit, obj types.Object) bool {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Name() != target.Name() {
			return false
		}
		fn = fn.Origin()
		r, ok := memo[fn]
		if !ok {
			other, mine := effectiveReceiver(fn), receiverAsSeenBy(target, recv, fn)
			r.related = other != nil && (implementsType(other, mine) || implementsType(mine, other))
			r.local = r.related && p.declaredLocally(fn)
			memo[fn] = r
		}
		return r.related && (r.local || u.path == home)
	}
}

// effectiveReceiver is a method's receiver type as method sets see it
// (*T for a method of T), nil for anything else.
func effectiveReceiver(obj types.Object) types.Type {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Signature().Recv() == nil {
		return nil
	}
	return methodSetOf(fn.Signature().Recv().Type())
}

// methodSetOf returns the type whose method set a receiver of type t
// has its method in: *T for T, t for a pointer or an interface.
func methodSetOf(t types.Type) types.Type {
	if _, isPtr := types.Unalias(t).(*types.Pointer); !isPtr && !types.IsInterface(t) {
		t = types.NewPointer(t)
	}
	return t
}

// receiverAsSeenBy returns the target's receiver recv as the check that
// declared fn sees it. A method of a type declared in a function, or of
// an interface literal, in a package read from disk comes from checking
// the package again (unitIndex.object), or from another test variant's
// check: its signature names that check's package-level types, not
// those the target's package has, and the two would never be identical.
// The target's receiver is then the type of that name in fn's package.
func receiverAsSeenBy(target types.Object, recv types.Type, fn *types.Func) types.Type {
	tn, _ := typeOf(target)
	pkg := fn.Pkg()
	if tn == nil || !packageLevel(tn) || pkg == nil || pkg == tn.Pkg() || pkg.Path() != tn.Pkg().Path() {
		return recv
	}
	if n := namedOf(fn.Signature().Recv().Type()); n != nil && packageLevel(n.Obj()) {
		return recv // a package-level type is found, not checked again
	}
	alt, ok := pkg.Scope().Lookup(tn.Name()).(*types.TypeName)
	if !ok {
		return recv
	}
	return methodSetOf(alt.Type())
}

// implementsType reports whether x implements the interface y.
func implementsType(x, y types.Type) bool {
	iface, ok := y.Underlying().(*types.Interface)
	return ok && iface.NumMethods() > 0 && types.Implements(x, iface)
}

// listedLocal reports whether go list reported the package of an import
// path in the repository, checked yet or not.
func (p *program) listedLocal(path string) bool {
	n := p.lazy.nodes[path]
	return n != nil && n.local
}

// declaredLocally reports whether a method belongs to a named type
// declared at package level in a repository package.
func (p *program) declaredLocally(fn *types.Func) bool {
	n := namedOf(fn.Signature().Recv().Type())
	if n == nil || n.Obj().Pkg() == nil || n.Obj().Parent() != n.Obj().Pkg().Scope() {
		return false
	}
	return p.listedLocal(n.Obj().Pkg().Path())
}
