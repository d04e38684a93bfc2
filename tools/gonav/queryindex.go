package gonav

import (
	"context"
	"go/types"
)

// prepareQueries starts building the named types and their method
// index, which implementations reads, once a load is done and every
// unit is checked (publish), in the background: seconds on a large
// repository, which the first query of another relation need not wait
// for, and the first implementations query waits for only what is left
// of. The identifiers by name are each
// unit's (unitIndex.named), shared by the programs of every revision.
// The call graph is left to the first callers or callees query: it is
// the larger, in memory and time, and only those two relations read it.
//
// The build holds the program: stop ends it, so that a program the
// service drops is not kept alive by it. before, when not nil, runs
// first in the build's goroutine (tests hold the build with it).
func (p *program) prepareQueries(before func(context.Context)) {
	p.life, p.stopPrepare = context.WithCancel(context.Background())
	p.beforeTables = before
	if p.complete() {
		p.startTables()
	}
}

// startTables starts prepareQueries' build, once, when every unit is
// checked: the tables hold every package's types.
func (p *program) startTables() {
	p.tablesOnce.Do(func() {
		go func() {
			if p.beforeTables != nil {
				p.beforeTables(p.life)
			}
			p.buildQueryTables(p.life)
		}()
	})
}

// stop ends the background builds of prepareQueries and indexRest; a
// query builds what they left undone.
func (p *program) stop() {
	if p.stopPrepare != nil {
		p.stopPrepare()
	}
}

// buildQueryTables builds the named types and their method index, once
// per program, unless ctx ends first: then nothing is kept, and the next
// caller builds them.
func (p *program) buildQueryTables(ctx context.Context) error {
	p.queryMu.Lock()
	defer p.queryMu.Unlock()
	if p.methodIx != nil {
		return nil
	}
	named, err := p.collectNamed(ctx)
	if err != nil {
		return err
	}
	ix, err := indexMethods(ctx, named)
	if err != nil {
		return err
	}
	p.named, p.methodIx = named, ix
	return nil
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
// package, in the order of their scopes' names. Those declared in
// functions count only for a target of their own package: localTypes
// lists them then (a package read from disk is checked again to find
// them).
func (p *program) namedTypes() []namedType {
	p.buildQueryTables(context.Background())
	return p.named
}

// collectNamed lists namedTypes' types, unless ctx ends first.
func (p *program) collectNamed(ctx context.Context) ([]namedType, error) {
	var named []namedType
	for _, u := range p.allUnits() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if u.types() == nil {
			continue
		}
		scope := u.types().Scope()
		for _, name := range scope.Names() {
			if nt, ok := p.namedTypeOf(u, scope.Lookup(name)); ok {
				named = append(named, nt)
			}
		}
	}
	return named, nil
}

// localTypes lists the named types declared in the function bodies of
// the repository packages of an import path whose method names may
// relate them to a target's (see mayRelate), in the order of their
// positions.
func (p *program) localTypes(ctx context.Context, path string, target localSet) ([]namedType, error) {
	var out []namedType
	for _, u := range p.localUnits() {
		if u.path != path {
			continue
		}
		ix, err := u.indexOf(ctx)
		if err != nil {
			return nil, err
		}
		if ix == nil {
			continue
		}
		noteRead(ctx, u)
		for j, i := range ix.LocalTypes {
			if !mayRelate(target, ix.LocalSets[j]) {
				continue
			}
			if nt, ok := p.namedTypeOf(u, ix.object(i)); ok {
				nt.inFunc = true
				out = append(out, nt)
			}
		}
	}
	return out, nil
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
