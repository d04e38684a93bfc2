package gonav

import (
	"cmp"
	"context"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/repo-mcp/repo-mcp/server"
)

// target is what a query asks about: a declared object, or a package.
type target struct {
	obj  types.Object
	unit *unit // where obj was found; for a package, the package
}

// maxCandidates bounds the candidates of an ambiguous symbol.
const maxCandidates = 20

// validSymbol reports whether a symbol is made of what Go names, import
// paths and the (*T).M form use; nothing else is ever matched, so a
// symbol is never compiled as a pattern.
func validSymbol(s string) bool {
	if s == "" || len(s) > 512 {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_./-~()*+", r) {
			return false
		}
	}
	return true
}

// resolveSymbol finds what a symbol names. More than one declaration:
// the candidates, and no target. It first has the test variants whose
// files spell the symbol's names checked (symbolWords), the ones of
// them index selects indexed as they are; when the symbol names nothing
// in those, every one.
func (p *program) resolveSymbol(ctx context.Context, symbol string, index func(*node) bool) (*target, []*target, error) {
	if !validSymbol(symbol) {
		return nil, nil, server.Errorf(server.InvalidInput, "symbol %q is not a Go name: want pkg.Name, pkg.Type.Method, (*pkg.Type).Method or an import path", symbol)
	}
	s := cleanSymbol(symbol)
	if err := p.ensure(ctx, symbolWants(s), index); err != nil {
		return nil, nil, err
	}
	t, cands, err := p.lookupSymbol(s)
	if t == nil && cands == nil && !p.complete() {
		// A member promoted from a field of a type declared in a test
		// file is not spelled where the type is.
		if err := p.ensureAll(ctx); err != nil {
			return nil, nil, err
		}
		return p.lookupSymbol(s)
	}
	return t, cands, err
}

// cleanSymbol returns a symbol without parentheses and stars: (*T).M
// is T.M.
func cleanSymbol(symbol string) string {
	return strings.NewReplacer("(", "", ")", "", "*", "").Replace(symbol)
}

// symbolWords returns the names a declaration a symbol may name spells:
// its last name, and of pkg.Type.Member, the type's.
func symbolWords(s string) []string {
	names := strings.Split(s[strings.LastIndex(s, "/")+1:], ".")
	words := []string{names[len(names)-1]}
	if len(names) >= 3 {
		words = append(words, names[len(names)-2])
	}
	return words
}

// lookupSymbol finds what a symbol, without parentheses and stars,
// names among the units checked.
func (p *program) lookupSymbol(s string) (*target, []*target, error) {
	found := map[string]*target{}
	var order []string
	add := func(t *target) {
		k := p.key(t.obj)
		if t.obj == nil {
			k = "package " + t.unit.path
		}
		if _, ok := found[k]; !ok {
			found[k] = t
			order = append(order, k)
		}
	}
	for _, sp := range splits(s) {
		for _, u := range p.packagesNamed(sp.pkg) {
			if sp.rest == "" {
				add(&target{unit: u})
				continue
			}
			if obj := lookup(u, sp.rest); obj != nil {
				add(&target{obj: obj, unit: u})
			}
		}
	}
	switch len(order) {
	case 0:
		return nil, nil, server.Errorf(server.NotFound, "no declaration named %q in the packages loaded (the repository's and their dependencies)", s).
			WithHint("search_symbol finds declarations by partial names")
	case 1:
		return found[order[0]], nil, nil
	}
	var cands []*target
	for _, k := range order {
		cands = append(cands, found[k])
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].unit.local && !cands[j].unit.local })
	if len(cands) > maxCandidates {
		cands = cands[:maxCandidates]
	}
	return nil, cands, nil
}

// split is one reading of a symbol: a package reference and the name in
// it ("" for the package itself).
type split struct{ pkg, rest string }

// splits returns every reading of s: each dot after the last slash may
// end the package part, and a symbol without a slash may name no package
// at all.
func splits(s string) []split {
	var out []split
	slash := strings.LastIndex(s, "/")
	if slash >= 0 {
		out = append(out, split{pkg: s})
	} else {
		out = append(out, split{rest: s}, split{pkg: s})
	}
	for i := slash + 1; i < len(s); i++ {
		if s[i] == '.' && i > 0 {
			out = append(out, split{pkg: s[:i], rest: s[i+1:]})
		}
	}
	return out
}

// packagesNamed returns the units a package reference may mean: an import
// path, a path's last elements, or a package name; "" means every
// repository package. A package whose import path is the reference
// itself is what it means, if there is one: "sync" is sync, not also
// internal/sync, whose name is sync too. Of a package and its test
// variant, the variant is taken: it declares everything the package
// does, and its tests' names.
func (p *program) packagesNamed(ref string) []*unit {
	units := p.allUnits()
	exact := ref != "" && slices.ContainsFunc(units, func(u *unit) bool { return u.path == ref && u.hasTypes() })
	best := map[string]*unit{}
	var order []string
	for _, u := range units {
		match := ref == "" && u.local
		switch {
		case exact:
			match = u.path == ref
		case ref != "":
			match = u.name == ref || strings.HasSuffix(u.path, "/"+ref)
		}
		if !match || !u.hasTypes() {
			continue
		}
		prev, ok := best[u.path]
		if !ok {
			order = append(order, u.path)
		}
		if !ok || variantRank(u) > variantRank(prev) {
			best[u.path] = u
		}
	}
	// In go list's order of the paths, as if every unit were checked.
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(p.lazy.first[a], p.lazy.first[b]) })
	var out []*unit
	for _, path := range order {
		out = append(out, best[path])
	}
	return out
}

// variantRank orders the units of one import path as packagesNamed
// prefers them: the package's own test variant (p [p.test]), the package,
// then a variant recompiled for another package's test (p [q.test]),
// which declares what the package does, and is not indexed.
func variantRank(u *unit) int {
	_, variant, ok := cutVariant(u.id)
	switch {
	case !ok:
		return 1
	case variant == u.path+".test":
		return 2
	}
	return 0
}

// lookup finds Name or Type.Member in a package.
func lookup(u *unit, rest string) types.Object {
	name, member, _ := strings.Cut(rest, ".")
	if !u.mayDeclare(name) {
		return nil // every repository package is looked in for a symbol without a package part
	}
	obj := u.types().Scope().Lookup(name)
	if obj == nil {
		obj = u.unexportedObject(name) // a package read from disk
	}
	if obj == nil || member == "" {
		return obj
	}
	if strings.Contains(member, ".") {
		return nil
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		return nil
	}
	m, _, _ := types.LookupFieldOrMethod(tn.Type(), true, u.types(), member)
	return m
}

// resolvePosition finds the identifier at a 1-based line and column of a
// repository file.
func (p *program) resolvePosition(ctx context.Context, path string, line, col int) (*target, error) {
	holds := holdingFile(path)
	if err := p.ensure(ctx, holds, holds); err != nil {
		return nil, err
	}
	units := holding(p.localUnits(), path)
	ixs, err := p.indexesOf(ctx, units)
	if err != nil {
		return nil, err
	}
	noteRead(ctx, units...)
	for ui, u := range units {
		ix := ixs[ui]
		if ix == nil {
			continue
		}
		for fi, f := range ix.Files {
			if f.Name != path {
				continue
			}
			tf := f.tf
			if line > tf.LineCount() {
				return nil, server.Errorf(server.InvalidInput, "line %d is past the end of %s (%d lines)", line, path, tf.LineCount())
			}
			start := tf.LineStart(line)
			end := tf.Pos(tf.Size())
			if line < tf.LineCount() {
				end = tf.LineStart(line + 1)
			}
			pos := start + token.Pos(col-1)
			if pos >= end && !(pos == end && line == tf.LineCount()) {
				return nil, server.Errorf(server.InvalidInput, "column %d is past the end of line %d of %s (%d bytes)", col, line, path, int(end-start))
			}
			i := ix.identAt(int32(fi), int32(tf.Offset(pos)))
			if i == noRef {
				return nil, server.Errorf(server.NotFound, "no identifier at %s:%d:%d", path, line, col)
			}
			id := ix.Idents[i]
			if obj := ix.object(id.Def); obj != nil {
				return &target{obj: obj, unit: u}, nil
			}
			if obj := ix.object(id.Use); obj != nil {
				if pn, ok := obj.(*types.PkgName); ok {
					return p.packageTarget(ctx, pn.Imported().Path(), obj)
				}
				return &target{obj: obj, unit: u}, nil
			}
			if id.Clause {
				return &target{unit: u}, nil
			}
			return nil, server.Errorf(server.NotFound, "the identifier %s at %s:%d:%d has no type information (its package did not type-check: %s)", ix.Names[id.Name], path, line, col, strings.Join(u.problems, "; "))
		}
	}
	return nil, server.Errorf(server.NotFound, "%s is not a Go file of a package go list reports (test files, build-constrained and testdata files excepted)", path)
}

// packageTarget is the target of an imported package's name: the
// package, and its own test variant, are checked first.
func (p *program) packageTarget(ctx context.Context, path string, obj types.Object) (*target, error) {
	if err := p.ensure(ctx, hasPath(path), nil); err != nil {
		return nil, err
	}
	for _, u := range p.packagesNamed(path) {
		if u.path == path {
			return &target{unit: u}, nil
		}
	}
	return &target{obj: obj}, nil
}
