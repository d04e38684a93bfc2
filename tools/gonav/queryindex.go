package gonav

import (
	"go/types"
	"sync"
)

// prepareQueries builds the indexes the relations share, the identifiers
// by name, the call graph and the package-level named types, in
// parallel, as a load's last step: otherwise the first query of each
// relation pays for one of them, seconds on a large repository.
func (p *program) prepareQueries() {
	var wg sync.WaitGroup
	wg.Go(func() { p.identifiers() })
	wg.Go(func() { p.callGraph() })
	wg.Go(func() { p.namedTypes() })
	wg.Wait()
}

// namedType is a package-level named type that is neither an alias nor
// generic: what implementations answers with.
type namedType struct {
	unit  *unit
	obj   *types.TypeName
	key   string           // p.key(obj)
	iface *types.Interface // its underlying interface; nil for a concrete type
}

// namedTypes lists the named types of every loaded package, once per
// program, in the order of the packages and of their scopes' names.
func (p *program) namedTypes() []namedType {
	p.namedOnce.Do(func() {
		for _, u := range p.units {
			if u.types == nil {
				continue
			}
			scope := u.types.Scope()
			for _, name := range scope.Names() {
				tn, ok := scope.Lookup(name).(*types.TypeName)
				if !ok || tn.IsAlias() {
					continue
				}
				n, ok := tn.Type().(*types.Named)
				if !ok || n.TypeParams().Len() > 0 {
					continue
				}
				iface, _ := n.Underlying().(*types.Interface)
				p.named = append(p.named, namedType{unit: u, obj: tn, key: p.key(tn), iface: iface})
			}
		}
	})
	return p.named
}
