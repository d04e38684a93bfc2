package gonav

import (
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
	pos     token.Pos
	caller  int32 // the unit's object: the declared function around the call; noRef at package level
	callee  int32 // the unit's object: a function, or an interface method
	dynamic bool  // callee is an interface method
}

func (s callSite) callerObj() types.Object { return s.unit.index.object(s.caller) }
func (s callSite) calleeObj() types.Object { return s.unit.index.object(s.callee) }

// callIndex holds every call of the repository's packages, by callee and
// by caller.
type callIndex struct {
	byCallee map[string][]callSite
	byCaller map[string][]callSite
}

// callGraph builds the index once per program, from the calls each
// unit's index records.
func (p *program) callGraph() *callIndex {
	p.callsOnce.Do(func() {
		ix := &callIndex{byCallee: map[string][]callSite{}, byCaller: map[string][]callSite{}}
		type at struct {
			file string
			off  int32
		}
		seen := map[at]bool{} // a file checked twice (p, p [p.test]) counts once
		for _, u := range p.local {
			if u.index == nil {
				continue
			}
			for _, c := range u.index.Calls {
				if k := (at{u.index.Files[c.File].Name, c.Lparen}); !seen[k] {
					seen[k] = true
					p.addCall(ix, u, c)
				}
			}
		}
		p.calls = ix
	})
	return p.calls
}

func (p *program) addCall(ix *callIndex, u *unit, c indexCall) {
	site := callSite{unit: u, pos: u.index.pos(c.File, c.Off), callee: c.Callee, caller: c.Caller, dynamic: c.Dynamic}
	callee := u.index.key(c.Callee)
	ix.byCallee[callee] = append(ix.byCallee[callee], site)
	if c.Caller != noRef {
		caller := u.index.key(c.Caller)
		ix.byCaller[caller] = append(ix.byCaller[caller], site)
	}
}

// callers answers the calls of the target, and of its callers to depth.
// A caller is named and followed by its key and name in the index: only
// a method's object is found, for the interfaces its type implements
// (calleeKeys), since finding a function a package read from disk does
// not export (a generic one) checks the package again.
func (p *program) callers(t *target, depth int) []Location {
	ix := p.callGraph()
	var out []Location
	level := []callerFunc{{key: p.key(t.obj), name: qualified(t.obj), method: true, obj: func() types.Object { return t.obj }}}
	done := map[string]bool{level[0].key: true}
	for d := 1; d <= depth && len(level) > 0; d++ {
		var next []callerFunc
		for _, fn := range level {
			for _, key := range fn.calleeKeys(p) {
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
	return out
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
	r := &s.unit.index.Objects[s.caller]
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
func (f callerFunc) calleeKeys(p *program) []string {
	if !f.method {
		return []string{f.key}
	}
	if obj := f.obj(); obj != nil {
		return p.calleeKeys(obj)
	}
	return []string{f.key}
}

// calleeKeys are the callees whose calls may call fn: fn itself and,
// for a method, the methods of the interfaces its type implements.
func (p *program) calleeKeys(fn types.Object) []string {
	keys := []string{p.key(fn)}
	f, ok := fn.(*types.Func)
	if !ok || f.Signature().Recv() == nil || types.IsInterface(f.Signature().Recv().Type()) {
		return keys
	}
	tn, _ := typeOf(fn)
	if tn == nil {
		return keys
	}
	for _, iface := range p.implementers(&target{obj: tn, unit: p.unitOf(tn)}) {
		if m, _, _ := types.LookupFieldOrMethod(iface.Type(), false, iface.Pkg(), f.Name()); m != nil {
			keys = append(keys, p.key(m))
		}
	}
	return keys
}

// callees answers the functions the target calls, and those they call to
// depth.
func (p *program) callees(t *target, depth int) []Location {
	ix := p.callGraph()
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
					targets = concrete(p.implementers(&target{obj: callee, unit: s.unit}))
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
	return out
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
