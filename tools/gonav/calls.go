package gonav

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// callGraphNote is what Precision.CallGraph says.
const callGraphNote = "static call graph by class hierarchy analysis (CHA) over the type-checked repository packages: " +
	"a call of an interface method stands for a call of that method of every loaded type that implements the interface " +
	"(kind dynamic_call); calls through function values, reflection and calls inside dependencies are not followed; " +
	"calls in function literals count as calls of the function declaring them"

// callSite is one call in a repository function's body. Its caller and
// callee are found when an answer names them, not when the graph is
// built: finding a method of a type declared in a function checks its
// package again (see unitIndex.object).
type callSite struct {
	unit    *unit
	ix      *unitIndex // the unit's
	pos     token.Pos
	caller  int32 // the unit's object: the declared function around the call; noRef at package level
	callee  int32 // the unit's object: a function, or an interface method
	dynamic bool  // callee is an interface method
}

func (s callSite) callerObj() types.Object { return s.ix.object(s.caller) }
func (s callSite) calleeObj() types.Object { return s.ix.object(s.callee) }

// callIndex holds every call of the repository's packages, by callee and
// by caller.
type callIndex struct {
	byCallee map[string][]callSite
	byCaller map[string][]callSite
}

// callGraph builds the index once per program, from the calls each
// unit's index records. When ctx ends first, nothing is kept, and the
// next caller builds it.
func (p *program) callGraph(ctx context.Context) (*callIndex, error) {
	if err := p.ensure(ctx, everything, everything); err != nil {
		return nil, err
	}
	local := p.localUnits()
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	if p.calls != nil {
		noteRead(ctx, local...)
		return p.calls, nil
	}
	calls := &callIndex{byCallee: map[string][]callSite{}, byCaller: map[string][]callSite{}}
	type at struct {
		file string
		off  int32
	}
	seen := map[at]bool{} // a file checked twice (p, p [p.test]) counts once
	ixs, err := p.indexesOf(ctx, local)
	if err != nil {
		return nil, err
	}
	for i, u := range local {
		ix := ixs[i]
		if ix == nil {
			continue
		}
		for _, c := range ix.Calls {
			if k := (at{ix.Files[c.File].Name, c.Lparen}); !seen[k] {
				seen[k] = true
				calls.add(u, ix, c)
			}
		}
	}
	p.calls = calls
	noteRead(ctx, local...)
	return calls, nil
}

func (calls *callIndex) add(u *unit, ix *unitIndex, c indexCall) {
	site := callSite{unit: u, ix: ix, pos: ix.pos(c.File, c.Off), callee: c.Callee, caller: c.Caller, dynamic: c.Dynamic}
	callee := ix.key(c.Callee)
	calls.byCallee[callee] = append(calls.byCallee[callee], site)
	if c.Caller != noRef {
		caller := ix.key(c.Caller)
		calls.byCaller[caller] = append(calls.byCaller[caller], site)
	}
}

// callers answers the calls of the target, and of its callers to depth.
// A caller is named and followed by its key and name in the index: only
// a method's object is found, for the interfaces its type implements
// (calleeKeys), since finding a function a package read from disk does
// not export (a generic one) checks the package again.
func (p *program) callers(ctx context.Context, t *target, depth int) ([]Location, error) {
	ix, err := p.callGraph(ctx)
	if err != nil {
		return nil, err
	}
	var out []Location
	level := []callerFunc{{key: p.key(t.obj), name: qualified(t.obj), method: true, obj: func() types.Object { return t.obj }}}
	done := map[string]bool{level[0].key: true}
	for d := 1; d <= depth && len(level) > 0; d++ {
		var next []callerFunc
		for _, fn := range level {
			keys, err := fn.calleeKeys(ctx, p)
			if err != nil {
				return nil, err
			}
			for _, key := range keys {
				for _, s := range ix.byCallee[key] {
					loc := p.location(s.pos, callKind(s), s.unit.path)
					loc.Depth, loc.Via = d, fn.name
					if caller, ok := s.callerFunc(); ok {
						loc.Name, loc.Enclosing = caller.name, caller.name
						if !done[caller.key] {
							done[caller.key] = true
							next = append(next, caller)
						}
					}
					out = append(out, loc)
				}
			}
		}
		level = next
	}
	return out, nil
}

// callerFunc is a function callers follows: its key and qualified name,
// and how to find its object.
type callerFunc struct {
	key, name string
	method    bool
	obj       func() types.Object
}

// callerFunc returns the declared function around a call, false at
// package level or when it cannot be named.
func (s callSite) callerFunc() (callerFunc, bool) {
	if s.caller == noRef {
		return callerFunc{}, false
	}
	r := &s.ix.Objects[s.caller]
	f := callerFunc{key: r.Key, method: r.Kind == methodObject, obj: s.callerObj}
	switch {
	case r.Top != "" && r.Member != "":
		f.name = r.Pkg + "." + r.Top + "." + r.Member
	case r.Top != "" && !f.method:
		f.name = r.Pkg + "." + r.Top
	default:
		obj := s.callerObj()
		if obj == nil {
			return callerFunc{}, false
		}
		f.name = qualified(obj)
	}
	return f, true
}

// calleeKeys are the callees whose calls may call f (see
// program.calleeKeys): a function's own key, without finding it.
func (f callerFunc) calleeKeys(ctx context.Context, p *program) ([]string, error) {
	if !f.method {
		return []string{f.key}, nil
	}
	if obj := f.obj(); obj != nil {
		return p.calleeKeys(ctx, obj)
	}
	return []string{f.key}, nil
}

// calleeKeys are the callees whose calls may call fn: fn itself and,
// for a method, the methods of the interfaces its type implements.
func (p *program) calleeKeys(ctx context.Context, fn types.Object) ([]string, error) {
	keys := []string{p.key(fn)}
	f, ok := fn.(*types.Func)
	if !ok || f.Signature().Recv() == nil || types.IsInterface(f.Signature().Recv().Type()) {
		return keys, nil
	}
	tn, _ := typeOf(fn)
	if tn == nil {
		return keys, nil
	}
	ifaces, err := p.implementers(ctx, &target{obj: tn, unit: p.unitOf(tn)})
	if err != nil {
		return nil, err
	}
	for _, iface := range ifaces {
		if m, _, _ := types.LookupFieldOrMethod(iface.Type(), false, iface.Pkg(), f.Name()); m != nil {
			keys = append(keys, p.key(m))
		}
	}
	return keys, nil
}

// callees answers the functions the target calls, and those they call to
// depth.
func (p *program) callees(ctx context.Context, t *target, depth int) ([]Location, error) {
	ix, err := p.callGraph(ctx)
	if err != nil {
		return nil, err
	}
	var out []Location
	level := []types.Object{t.obj}
	done := map[string]bool{p.key(t.obj): true}
	for d := 1; d <= depth && len(level) > 0; d++ {
		var next []types.Object
		for _, fn := range level {
			listed := map[string]bool{}
			for _, s := range ix.byCaller[p.key(fn)] {
				callee := s.calleeObj()
				if callee == nil {
					continue
				}
				targets := []types.Object{callee}
				if s.dynamic {
					impls, err := p.implementers(ctx, &target{obj: callee, unit: s.unit})
					if err != nil {
						return nil, err
					}
					targets = concrete(impls)
				}
				for _, c := range targets {
					k := p.key(c)
					if listed[k] {
						continue
					}
					listed[k] = true
					loc := p.location(c.Pos(), callKind(s), pkgPath(c))
					site := p.fset.Position(s.pos)
					loc.Name, loc.Enclosing, loc.Depth = qualified(c), qualified(fn), d
					loc.Via = fmt.Sprintf("%s:%d:%d", site.Filename, site.Line, site.Column)
					out = append(out, loc)
					if !done[k] {
						done[k] = true
						next = append(next, c)
					}
				}
			}
		}
		level = next
	}
	return out, nil
}

func callKind(s callSite) string {
	if s.dynamic {
		return "dynamic_call"
	}
	return "call"
}

// unitOf returns a unit declaring obj's package, preferring a test
// variant, or nil.
func (p *program) unitOf(obj types.Object) *unit {
	if obj.Pkg() == nil {
		return nil
	}
	for _, u := range p.packagesNamed(obj.Pkg().Path()) {
		if u.path == obj.Pkg().Path() {
			return u
		}
	}
	return nil
}

// concrete keeps the methods of types that are not interfaces: what an
// interface call may reach at run time.
func concrete(objs []types.Object) []types.Object {
	var out []types.Object
	for _, o := range objs {
		if f, ok := o.(*types.Func); ok && !types.IsInterface(f.Signature().Recv().Type()) {
			out = append(out, o)
		}
	}
	return out
}

// calleePos is where a call names its callee, as gopls reports calls: the
// method's or function's name.
func calleePos(call *ast.CallExpr) token.Pos {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		return sel.Sel.Pos()
	}
	return fun.Pos()
}
