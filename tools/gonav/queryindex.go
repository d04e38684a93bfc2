package gonav

import (
	"go/types"
)

// prepareQueries builds the named types, which implementations reads,
// as a load's last step: otherwise the first query pays for it, seconds
// on a large repository. The identifiers by name are each unit's
// (unitIndex.named), shared by the programs of every revision. The call
// graph is left to the first callers or callees query: it is the
// larger, in memory and time, and only those two relations read it.
func (p *program) prepareQueries() {
	p.namedTypes()
}

// namedType is a named type that is neither an alias nor generic: what
// implementations answers with.
type namedType struct {
	unit  *unit
	obj   *types.TypeName
	key   string           // p.key(obj)
	iface *types.Interface // its underlying interface; nil for a concrete type
	// inFunc says the type is declared in a function body (of a
	// repository package: dependencies are checked without bodies).
	inFunc bool
}

// namedTypes lists the package-level named types of every loaded
// package, once per program, in the order of their scopes' names. Those
// declared in functions count only for a target of their own package:
// localTypes lists them then (a package read from disk is checked again
// to find them).
func (p *program) namedTypes() []namedType {
	p.namedOnce.Do(func() {
		for _, u := range p.units {
			if u.types == nil {
				continue
			}
			scope := u.types.Scope()
			for _, name := range scope.Names() {
				if nt, ok := p.namedTypeOf(u, scope.Lookup(name)); ok {
					p.named = append(p.named, nt)
				}
			}
		}
	})
	return p.named
}

// localTypes lists the named types declared in the function bodies of
// the repository packages of an import path, in the order of their
// positions.
func (p *program) localTypes(path string) []namedType {
	var out []namedType
	for _, u := range p.local {
		if u.index == nil || u.path != path {
			continue
		}
		for _, i := range u.index.LocalTypes {
			if nt, ok := p.namedTypeOf(u, u.index.object(i)); ok {
				nt.inFunc = true
				out = append(out, nt)
			}
		}
	}
	return out
}

// namedTypeOf returns obj as a namedType, or false when it is not a
// type name, or an alias, or generic.
func (p *program) namedTypeOf(u *unit, obj types.Object) (namedType, bool) {
	tn, ok := obj.(*types.TypeName)
	if !ok || tn.IsAlias() {
		return namedType{}, false
	}
	n, ok := tn.Type().(*types.Named)
	if !ok || n.TypeParams().Len() > 0 {
		return namedType{}, false
	}
	iface, _ := n.Underlying().(*types.Interface)
	return namedType{unit: u, obj: tn, key: p.key(tn), iface: iface}, true
}
