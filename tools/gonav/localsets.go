package gonav

import (
	"go/types"
	"slices"
)

// localSet is a type declared in a function, as implementations
// first sees it: whether it is an interface, and the names of its
// methods (an interface's, or those of the type and its pointer),
// sorted. A type can implement an interface only if it has every one of
// the interface's names, so the types whose names rule them out are not
// found: in a package read from disk, finding one checks the package
// again.
type localSet struct {
	Iface bool
	Names []string
}

// localSetOf returns a named type's localSet.
func localSetOf(n *types.Named) localSet {
	iface, _ := n.Underlying().(*types.Interface)
	set := localSet{Iface: iface != nil, Names: methodNames(namedType{obj: n.Obj(), iface: iface})}
	slices.Sort(set.Names)
	return set
}

// mayRelate reports whether a local type whose names are cand may
// implement, or be implemented by, a target whose names are target (of
// an interface when iface): implementersAmong's cases, by name.
func mayRelate(target, cand localSet) bool {
	switch {
	case target.Iface:
		return hasAll(cand.Names, target.Names)
	case cand.Iface:
		return len(cand.Names) > 0 && hasAll(target.Names, cand.Names)
	}
	return false
}

// hasAll reports whether the sorted names of set hold every one of sub.
func hasAll(set, sub []string) bool {
	for _, name := range sub {
		if _, ok := slices.BinarySearch(set, name); !ok {
			return false
		}
	}
	return true
}
