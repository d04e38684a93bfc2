package gonav

import (
	"go/types"
	"strings"
	"sync"
	"weak"
)

// unit is one type-checked package as go list reports it: a package, or
// one of its test variants ("p [p.test]" holds p's files and its
// _test.go files; "p_test [p.test]" is the external test package).
type unit struct {
	id   string // go list's ImportPath, the variant included
	path string // the import path
	name string
	dir  string // display name of the directory
	// local says the package is in the repository: checked with function
	// bodies and full type information. Dependencies are checked for
	// their declarations only.
	local     bool
	fileNames []string // display names, as the file set knows them
	// t is the unit's type information (see types, api and hidden); a
	// unit read from disk has it decoded when first asked for (lazy).
	t    unitTypes
	lazy lazyTypes
	// names are, for a unit read from disk, those its package declares
	// at package level (storedUnit.Names).
	names string
	// indexed says the package has an index, what queries read of a
	// package checked with function bodies (full); index produces it
	// when first asked for (indexOf).
	indexed bool
	index   lazyIndex
	// unexported are the objects unexportedObject made of what hidden
	// declares.
	hiddenMu   sync.Mutex
	unexported map[string]types.Object
	// problems say why the package is not fully typed: go list's error,
	// skipped files, type errors. None: typed. Those of a package with
	// an index are complete once its index is built: the load may check
	// it without its function bodies, and checkBodies sets them then,
	// before the index is handed out (see lazyIndex), so a reader who has
	// the index reads them without a race. listed are the problems known
	// before it is checked (go list's error, skipped files), which never
	// change.
	problems []string
	listed   []string
	key      string
	apiKey   string // see cutoff.go

	closureOnce sync.Once
	closure     map[string]*types.Package // import path -> the package this unit sees
	depsOnce    sync.Once
	deps        map[string]*unit // import path -> the dependency whose API this unit sees
}

// typed reports whether the package type-checked without a problem.
func (u *unit) typed() bool { return len(u.problems) == 0 }

// test reports whether the unit is a test variant.
func (u *unit) test() bool { return strings.HasSuffix(u.id, "]") }

// imports returns the packages the unit sees by import path: its own and
// every one it imports, directly or not. Test variants see their
// variants of dependencies.
func (u *unit) imports() map[string]*types.Package {
	if u == nil {
		return nil
	}
	u.closureOnce.Do(func() {
		u.closure = map[string]*types.Package{}
		if u.types() == nil {
			return
		}
		var walk func(p *types.Package)
		walk = func(p *types.Package) {
			if _, ok := u.closure[p.Path()]; ok {
				return
			}
			u.closure[p.Path()] = p
			for _, q := range p.Imports() {
				walk(q)
			}
		}
		walk(u.types())
	})
	return u.closure
}

// dependency returns the unit whose API package a unit (of node n) sees
// at an import path, its own path aside: imports()[path] is that unit's
// api, but dependency decodes no types, neither the unit's nor the
// others' (see lazytypes.go). An import path names one package in a
// build, so the walk finds the one imports finds.
func (u *unit) dependency(n *node, path string) *unit {
	u.depsOnce.Do(func() {
		u.deps = map[string]*unit{}
		var walk func(n *node)
		walk = func(n *node) {
			for _, d := range n.deps {
				if _, ok := u.deps[d.unit.path]; !ok {
					u.deps[d.unit.path] = d.unit
					walk(d)
				}
			}
		}
		walk(n)
	})
	return u.deps[path]
}

// unitCache shares type-checked packages between the programs of
// different revisions: a package's key covers its files' contents and
// its dependencies' API keys, so a unit with the same key is the same;
// and it shares the API packages importers see, by API key. The cache
// holds both weakly: they live as long as a program holds them.
type unitCache struct {
	mu   sync.Mutex
	m    map[string]weak.Pointer[unit]
	apis map[string]weak.Pointer[types.Package]
}

func newUnitCache() *unitCache {
	return &unitCache{m: map[string]weak.Pointer[unit]{}, apis: map[string]weak.Pointer[types.Package]{}}
}

func (c *unitCache) get(key string) *unit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return lookupWeak(c.m, key)
}

func (c *unitCache) put(u *unit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[u.key] = weak.Make(u)
}

// api returns the package importers see for an API key: an earlier
// unit's with that key while one lives, else pkg.
func (c *unitCache) api(apiKey string, pkg *types.Package) *types.Package {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := lookupWeak(c.apis, apiKey); old != nil {
		return old
	}
	c.apis[apiKey] = weak.Make(pkg)
	return pkg
}

// lookupWeak returns the live value under key, forgetting a dead one.
func lookupWeak[T any](m map[string]weak.Pointer[T], key string) *T {
	wp, ok := m[key]
	if !ok {
		return nil
	}
	v := wp.Value()
	if v == nil {
		delete(m, key)
	}
	return v
}

// unexportedObject returns, for a repository package read from disk, the
// unexported function, variable or constant of that name at package
// level, made from what hiddenDecls kept of it; nil when there is none,
// or when the unit's types are a check's, whose scope has them. The
// same name gives the same object.
func (u *unit) unexportedObject(name string) types.Object {
	hidden := u.hidden()
	if hidden == nil {
		return nil
	}
	u.hiddenMu.Lock()
	defer u.hiddenMu.Unlock()
	if obj, ok := u.unexported[name]; ok {
		return obj
	}
	var obj types.Object
	scope := hidden.Scope()
	if v, ok := scope.Lookup("F_" + name).(*types.Var); ok {
		if sig, ok := v.Type().(*types.Signature); ok {
			obj = types.NewFunc(v.Pos(), u.types(), name, sig)
		}
	} else if v, ok := scope.Lookup("V_" + name).(*types.Var); ok {
		obj = types.NewVar(v.Pos(), u.types(), name, v.Type())
	} else if c, ok := scope.Lookup("C_" + name).(*types.Const); ok {
		obj = types.NewConst(c.Pos(), u.types(), name, c.Type(), c.Val())
	}
	if u.unexported == nil {
		u.unexported = map[string]types.Object{}
	}
	u.unexported[name] = obj
	return obj
}
