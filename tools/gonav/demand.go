package gonav

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// A load checks the packages go list reported, and their test variants
// (a package recompiled for another's test, "q [p.test]"; a package's
// own test variant, "p [p.test]"; an external test package, "p_test
// [p.test]"), that the query that starts it needs (loadWants), with
// their dependencies; the others wait in the program until a query
// needs them (program.ensure), or until the background build after the
// first answer checks them all (indexInBackground). In the standard
// library, references of strings.Builder need 639 of the 2,243 units,
// the packages among them mostly as the test variants' dependencies. A
// query ensures what it reads before it reads types: a symbol the
// packages whose files spell it and those its package part names, a
// position those holding the file, references those whose files hold
// the name, and implementations, callers and callees every one. The
// answer is then the one the whole program gives. A unit is checked
// once, however many queries ask for it at once.

// unitSet is what a program has checked: replaced, never changed, as
// ensure checks more (program.set).
type unitSet struct {
	units []*unit          // in go list's order
	local []*unit          // the repository's, in the same order
	byID  map[string]*unit // by go list's ImportPath
	all   bool             // every node was checked when it was made
}

// deferred holds the nodes of a load, checked or not: ensure checks
// those a query needs on the loader's workers.
type deferred struct {
	l      *loader
	listed []*listedPackage
	nodes  map[string]*node
	order  []*node // dependencies first
	local  []*node // the repository's, in go list's order
	// first is where each import path first appears in go list's
	// order, which lists a package before its variants: packagesNamed
	// orders paths by it, checked yet or not.
	first map[string]int
	left  atomic.Int64

	mu      sync.Mutex // guards claimed, and makes publishing one at a time
	claimed map[*node]bool
}

// variant reports whether a node is a test variant, which a load checks
// only when its query needs it.
func (n *node) variant() bool {
	_, _, ok := cutVariant(n.lp.ImportPath)
	return ok
}

// checked reports whether a node is checked: its unit is then set.
func (n *node) checked() bool {
	select {
	case <-n.done:
		return true
	default:
		return false
	}
}

// newDeferred returns the nodes of a load, none checked.
func newDeferred(l *loader, listed []*listedPackage, nodes map[string]*node, order []*node) *deferred {
	d := &deferred{l: l, listed: listed, nodes: nodes, order: order, claimed: map[*node]bool{}, first: map[string]int{}}
	d.left.Store(int64(len(order)))
	seen := map[*node]bool{}
	for i, lp := range listed {
		path, _, _ := cutVariant(lp.ImportPath)
		if _, ok := d.first[path]; !ok {
			d.first[path] = i
		}
		if n := nodes[lp.ImportPath]; n != nil && n.local && !seen[n] {
			seen[n] = true
			d.local = append(d.local, n)
		}
	}
	return d
}

// everything selects every node.
func everything(*node) bool { return true }

// ensure checks the nodes want selects, and their dependencies, unless
// they are checked already or being checked for another query; index
// says which of those checked in full to index as they are checked (see
// loader.indexNow). It returns when they are all checked, or when ctx
// ends: then the nodes it started are finished, the others left for
// later. The program's units are then those checked so far, which the
// background build may have checked without publishing them yet.
func (p *program) ensure(ctx context.Context, want, index func(*node) bool) error {
	d := p.lazy
	if d == nil || p.set.Load().all {
		return nil
	}
	var err error
	if todo := d.closure(want); len(todo) > 0 {
		ld := *d.l
		ld.indexNow = index
		if _, err = ld.run(ctx, todo, d); err == nil {
			err = waitChecked(ctx, todo)
		}
	}
	p.publish()
	return err
}

// waitChecked waits until nodes are checked, or ctx ends.
func waitChecked(ctx context.Context, nodes []*node) error {
	for _, n := range nodes {
		select {
		case <-n.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// closure returns the nodes not checked yet that want selects, and
// their dependencies not checked yet, dependencies first.
func (d *deferred) closure(want func(*node) bool) []*node {
	in := map[*node]bool{}
	for i := len(d.order) - 1; i >= 0; i-- {
		n := d.order[i]
		if n.checked() {
			continue
		}
		if !in[n] && !want(n) {
			continue
		}
		in[n] = true
		for _, dep := range n.deps {
			if !dep.checked() {
				in[dep] = true
			}
		}
	}
	var todo []*node
	for _, n := range d.order {
		if in[n] {
			todo = append(todo, n)
		}
	}
	return todo
}

// claim reports whether the caller is the one to check n: a node is
// checked by the first query that claims it, the others wait for it.
func (d *deferred) claim(n *node) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.claimed[n] {
		return false
	}
	d.claimed[n] = true
	return true
}

// publish makes the units checked so far the program's, and starts
// the query tables' build once every one is.
func (p *program) publish() {
	p.setUnits()
	if p.lazy.left.Load() == 0 {
		p.startTables()
	}
}

// setUnits makes the units checked so far the program's, in go list's
// order.
func (p *program) setUnits() {
	d := p.lazy
	d.mu.Lock()
	defer d.mu.Unlock()
	set := &unitSet{byID: map[string]*unit{}, all: d.left.Load() == 0}
	for _, lp := range d.listed {
		n := d.nodes[lp.ImportPath]
		if n == nil || !n.checked() || n.unit == nil || set.byID[n.unit.id] != nil {
			continue
		}
		set.units = append(set.units, n.unit)
		set.byID[n.unit.id] = n.unit
		if n.unit.local {
			set.local = append(set.local, n.unit)
		}
	}
	p.set.Store(set)
}

// allUnits, localUnits and unitByID read the units checked so far;
// a query ensures first those it needs.
func (p *program) allUnits() []*unit        { return p.set.Load().units }
func (p *program) localUnits() []*unit      { return p.set.Load().local }
func (p *program) unitByID(id string) *unit { return p.set.Load().byID[id] }

// ensureAll checks every unit not checked yet: what implementations,
// callers and callees read.
func (p *program) ensureAll(ctx context.Context) error {
	return p.ensure(ctx, everything, nil)
}

// loadWants selects the packages the query that starts a load needs,
// as far as the load can tell before the query's target is resolved:
// for implementations, callers and callees, all; for a position, those
// holding the file; for a symbol, those whose files spell its names and
// those its package part may name (symbolWants; resolveSymbol ensures
// what else it may need). Their dependencies are checked with them.
func loadWants(in GoNavigateIn) func(*node) bool {
	switch {
	case in.Relation == Callers || in.Relation == Callees || in.Relation == Implementations:
		return everything
	case in.Path != "":
		return holdingFile(in.Path)
	}
	return symbolWants(cleanSymbol(in.Symbol))
}

// symbolWants selects the nodes a symbol, without parentheses and
// stars, may be found in (see lookupSymbol): those whose files spell
// its names (symbolWords), and the packages its package part may name
// (naming).
func symbolWants(s string) func(*node) bool {
	spelled, named := spelling(symbolWords(s)...), naming(s)
	return func(n *node) bool { return named(n) || spelled(n) }
}

// naming selects the nodes packagesNamed may take for one of the
// package parts a symbol may have (splits): an import path, its last
// elements or a package name. Not a package recompiled for another's
// test, which packagesNamed takes only when nothing else has the path
// (variantRank): the package itself is listed too.
func naming(s string) func(*node) bool {
	var refs []string
	for _, sp := range splits(s) {
		if sp.pkg != "" {
			refs = append(refs, sp.pkg)
		}
	}
	return func(n *node) bool {
		if n.variant() && !n.full {
			return false
		}
		path, _, _ := cutVariant(n.lp.ImportPath)
		return slices.ContainsFunc(refs, func(ref string) bool {
			return path == ref || n.lp.Name == ref || strings.HasSuffix(path, "/"+ref)
		})
	}
}

// hasPath selects the package of an import path and its own test
// variant: what packagesNamed takes for the path (see naming).
func hasPath(path string) func(*node) bool {
	return func(n *node) bool {
		p, _, _ := cutVariant(n.lp.ImportPath)
		return p == path && !(n.variant() && !n.full)
	}
}

// holdingFile selects the nodes one of whose files is file, of those a
// query reads the index of (see indexed), and the package itself when
// its test variant has the index: a position's query reads the units
// holding the file (resolvePosition). A package recompiled for
// another's test matters to a query only as their dependency.
func holdingFile(file string) func(*node) bool {
	return func(n *node) bool { return (n.full || !n.variant()) && slices.Contains(n.names, file) }
}

// spelling selects the nodes whose files hold one of words, as bytes,
// of those a query reads the index of (as holdingFile); a file that
// cannot be read holds them all. A file shared by several
// nodes (a package and its variants) is read once.
func spelling(words ...string) func(*node) bool {
	var mu sync.Mutex // the loader's workers ask at once (indexNow)
	seen := map[string]bool{}
	holds := func(host string) bool {
		mu.Lock()
		holds, ok := seen[host]
		mu.Unlock()
		if !ok {
			data, err := os.ReadFile(host)
			holds = err != nil || slices.ContainsFunc(words, func(w string) bool { return bytes.Contains(data, []byte(w)) })
			mu.Lock()
			seen[host] = holds
			mu.Unlock()
		}
		return holds
	}
	return func(n *node) bool { return n.full && slices.ContainsFunc(n.hosts, holds) }
}

// complete reports whether every unit is checked.
func (p *program) complete() bool { return p.lazy.left.Load() == 0 }
