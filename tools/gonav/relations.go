package gonav

import (
	"go/ast"
	"go/types"
)

// definition answers where the target is declared.
func (p *program) definition(t *target) []Location {
	if t.obj == nil {
		if locs := p.packageClauses(t.unit); len(locs) > 0 {
			return locs
		}
		return []Location{p.describe(t)} // a dependency: its directory
	}
	loc := p.location(t.obj.Pos(), kindOf(t.obj), pkgPath(t.obj))
	loc.Name = qualified(t.obj)
	return []Location{loc}
}

// packageClauses are the package clauses of a package's files.
func (p *program) packageClauses(u *unit) []Location {
	if u == nil {
		return nil
	}
	var out []Location
	for _, f := range u.files {
		loc := p.location(f.Name.Pos(), "package", u.path)
		loc.Name = u.path
		out = append(out, loc)
	}
	return out
}

func pkgPath(obj types.Object) string {
	if obj.Pkg() == nil {
		return ""
	}
	return obj.Pkg().Path()
}

// references answers where the target is named in the repository: its
// declaration, every use found by type, for a method the uses of the
// methods related to it (related_reference), and, in packages that did
// not type-check, every identifier of the same name that has no type
// information (syntactic_reference).
func (p *program) references(t *target) []Location {
	if t.obj == nil {
		return p.importsOf(t.unit.path)
	}
	is := p.sameAs(t.obj)
	related := p.relatedMethods(t.obj)
	var out []Location
	for _, ref := range p.identifiers()[t.obj.Name()] {
		u, id := ref.unit, ref.id
		kind, via := "", ""
		if obj := u.info.Defs[id]; obj != nil && is(obj) {
			kind = "declaration"
		} else if obj := u.info.Uses[id]; obj != nil && is(obj) {
			kind = "reference"
		} else if obj != nil && related(u, obj) {
			kind, via = "related_reference", qualified(obj)
		} else if !u.typed() && u.info.Defs[id] == nil && u.info.Uses[id] == nil && !ref.pkgClause {
			kind = "syntactic_reference"
		}
		if kind == "" {
			continue
		}
		loc := p.location(id.Pos(), kind, u.path)
		loc.Via = via
		if s := enclosing(ref.spans, id.Pos()); s != nil {
			loc.Enclosing = s.name
		}
		out = append(out, loc)
	}
	return out
}

// sameAs returns whether an object is the target's declaration (in any
// variant of its package), remembering each object's answer: the
// identifiers of one name are mostly uses of a few objects.
func (p *program) sameAs(target types.Object) func(types.Object) bool {
	want := p.key(target)
	memo := map[types.Object]bool{}
	return func(obj types.Object) bool {
		same, ok := memo[obj]
		if !ok {
			same = p.key(obj) == want
			memo[obj] = same
		}
		return same
	}
}

// identRef is one identifier of a repository file.
type identRef struct {
	unit      *unit
	id        *ast.Ident
	spans     []funcSpan // the file's functions, for the enclosing one
	pkgClause bool       // the name of the package clause
}

// identifiers indexes the identifiers of the fully checked repository
// packages by name, once per program: a references query then visits
// only the identifiers that bear the target's name.
func (p *program) identifiers() map[string][]identRef {
	p.identsOnce.Do(func() {
		p.idents = map[string][]identRef{}
		for _, u := range p.local {
			if u.info == nil {
				continue
			}
			for _, f := range u.files {
				spans := funcSpans(u, f)
				ast.Inspect(f, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						p.idents[id.Name] = append(p.idents[id.Name], identRef{unit: u, id: id, spans: spans, pkgClause: id == f.Name})
					}
					return true
				})
			}
		}
	})
	return p.idents
}

// importsOf answers the references of a package: the import specs that
// name it.
func (p *program) importsOf(path string) []Location {
	var out []Location
	for _, u := range p.local {
		for _, f := range u.files {
			for _, spec := range f.Imports {
				if importPath(spec) == path {
					loc := p.location(spec.Path.Pos(), "reference", u.path)
					out = append(out, loc)
				}
			}
		}
	}
	return out
}

func importPath(spec *ast.ImportSpec) string {
	v := spec.Path.Value
	if len(v) >= 2 {
		return v[1 : len(v)-1]
	}
	return v
}
