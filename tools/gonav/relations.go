package gonav

import (
	"context"
	"go/ast"
	"go/types"
)

// definition answers where the target is declared.
func (p *program) definition(ctx context.Context, t *target) ([]Location, error) {
	if t.obj == nil {
		if locs, err := p.packageClauses(ctx, t.unit); err != nil || len(locs) > 0 {
			return locs, err
		}
		loc, err := p.describe(ctx, t) // a dependency: its directory
		return []Location{loc}, err
	}
	loc := p.location(t.obj.Pos(), kindOf(t.obj), pkgPath(t.obj))
	loc.Name = qualified(t.obj)
	return []Location{loc}, nil
}

// packageClauses are the package clauses of a package's files.
func (p *program) packageClauses(ctx context.Context, u *unit) ([]Location, error) {
	if u == nil {
		return nil, nil
	}
	ix, err := u.indexOf(ctx)
	if ix == nil {
		return nil, err
	}
	noteRead(ctx, u)
	var out []Location
	for i, f := range ix.Files {
		loc := p.location(ix.pos(int32(i), f.Clause), "package", u.path)
		loc.Name = u.path
		out = append(out, loc)
	}
	return out, nil
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
func (p *program) references(ctx context.Context, t *target) ([]Location, error) {
	if t.obj == nil {
		return p.importsOf(ctx, t.unit.path)
	}
	name := spelling(t.obj.Name())
	if err := p.ensure(ctx, name, name); err != nil {
		return nil, err
	}
	related := p.relatedMethods(t.obj)
	units := p.mentioning(p.localUnits(), t.obj.Name())
	ixs, err := p.indexesOf(ctx, units)
	if err != nil {
		return nil, err
	}
	var out []Location
	want := p.key(t.obj)
	for i, u := range units {
		if ixs[i] != nil && len(ixs[i].named(t.obj.Name())) > 0 {
			noteRead(ctx, u)
			out = p.referencesIn(out, u, ixs[i], want, t.obj.Name(), related)
		}
	}
	return out, nil
}

// referencesIn adds the references of one unit, whose index is ix.
func (p *program) referencesIn(out []Location, u *unit, ix *unitIndex, want, name string, related func(*unit, types.Object) bool) []Location {
	for _, i := range ix.named(name) {
		id := ix.Idents[i]
		kind, via := "", ""
		if ix.key(id.Def) == want {
			kind = "declaration"
		} else if ix.key(id.Use) == want {
			kind = "reference"
		} else if obj := ix.method(id.Use); obj != nil && related(u, obj) {
			kind, via = "related_reference", qualified(obj)
		} else if !u.typed() && id.Def == noRef && id.Use == noRef && !id.Clause {
			kind = "syntactic_reference"
		}
		if kind == "" {
			continue
		}
		loc := p.location(ix.pos(id.File, id.Off), kind, u.path)
		loc.Via = via
		loc.Enclosing = ix.enclosing(id.Func)
		out = append(out, loc)
	}
	return out
}

// importsOf answers the references of a package: the import specs that
// name it.
func (p *program) importsOf(ctx context.Context, path string) ([]Location, error) {
	spelled := spelling(path)
	if err := p.ensure(ctx, spelled, spelled); err != nil {
		return nil, err
	}
	units := p.mentioning(p.localUnits(), path)
	ixs, err := p.indexesOf(ctx, units)
	if err != nil {
		return nil, err
	}
	var out []Location
	for i, u := range units {
		if ixs[i] == nil {
			continue
		}
		for _, spec := range ixs[i].Imports {
			if spec.Path == path {
				noteRead(ctx, u)
				out = append(out, p.location(ixs[i].pos(spec.File, spec.Off), "reference", u.path))
			}
		}
	}
	return out, nil
}

func importPath(spec *ast.ImportSpec) string {
	v := spec.Path.Value
	if len(v) >= 2 {
		return v[1 : len(v)-1]
	}
	return v
}
