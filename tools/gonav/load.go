package gonav

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
)

// maxTypeErrors bounds the type errors kept of one package.
const maxTypeErrors = 3

// loader type-checks the packages go list reported, reusing the units of
// earlier loads whose keys match.
type loader struct {
	fset         *token.FileSet
	cache        *unitCache
	store        *typeStore
	tables       *posTables // of fset's files read from the store
	log          *slog.Logger
	workers      int
	maxFileBytes int64
	// progress is told how many of total packages are loaded.
	progress func(done, total int)
	// indexNow, when not nil, says which packages to be checked in full
	// the query that starts the load will read: they are indexed as
	// they are checked, rather than checked again for it (indexHint).
	indexNow func(n *node) bool
}

// node is a listed package while it loads.
type node struct {
	lp    *listedPackage
	deps  []*node
	local bool
	// full says the package is checked with function bodies and full
	// type information: a repository package, unless its test variant
	// ("p [p.test]", which holds all of its files) is checked in full in
	// its place and it is needed only for its importers.
	full     bool
	dir      string   // display
	names    []string // display names of its files
	hosts    []string // and their host paths
	problems []string
	files    []byte // hash of the files and the check's settings
	key      string // files and the dependencies' API keys (keyOf)
	unit     *unit
	done     chan struct{}
}

// load builds the program of one export from go list's packages: it
// checks those want selects, with their dependencies; the others wait
// until a query needs them (see deferred).
func (l *loader) load(ctx context.Context, listed []*listedPackage, r roots, sums *fileSums, want func(*node) bool) (*program, error) {
	nodes, order := l.graph(listed, r)
	for _, n := range order {
		l.prepare(n, r, sums)
	}
	later := *l
	later.progress, later.indexNow = nil, nil // the load's call's
	d := newDeferred(&later, listed, nodes, order)
	checked, err := l.run(ctx, d.closure(want), d)
	if err != nil {
		return nil, err
	}
	l.log.Debug("go_navigate: hashed the repository's files the export did not name", "hashed", sums.hashed)
	p := &program{fset: l.fset, tables: l.tables, roots: r, lazy: d, total: len(order), checked: checked, workers: l.workers}
	p.setUnits()
	return p, nil
}

// graph links the packages to their dependencies and orders them
// dependencies first. An import that closes a cycle is dropped (go list
// reports the cycle as the package's error).
func (l *loader) graph(listed []*listedPackage, r roots) (map[string]*node, []*node) {
	nodes := map[string]*node{}
	for _, lp := range listed {
		if _, dup := nodes[lp.ImportPath]; dup {
			continue
		}
		n := &node{lp: lp, done: make(chan struct{})}
		if lp.Dir != "" {
			n.dir, _ = r.display(lp.Dir)
			n.local = inRepo(n.dir)
		}
		nodes[lp.ImportPath] = n
	}
	for _, n := range nodes {
		_, hasTestVariant := nodes[n.lp.ImportPath+" ["+n.lp.ImportPath+".test]"]
		n.full = n.local && !hasTestVariant && !recompiled(n.lp.ImportPath, nodes)
	}
	const (
		visiting = 1
		visited  = 2
	)
	state := map[*node]int{}
	var order []*node
	var visit func(n *node)
	visit = func(n *node) {
		state[n] = visiting
		for _, id := range n.lp.Imports {
			d := nodes[id]
			if d == nil || state[d] == visiting {
				continue
			}
			n.deps = append(n.deps, d)
			if state[d] == 0 {
				visit(d)
			}
		}
		state[n] = visited
		order = append(order, n)
	}
	for _, lp := range listed {
		if n := nodes[lp.ImportPath]; state[n] == 0 {
			visit(n)
		}
	}
	return nodes, order
}

// recompiled reports whether id is a package recompiled for another
// package's test ("q [p.test]", q importing p), whose files the package
// itself, or its own test variant, holds too: it is checked for its
// importers only, its declarations without function bodies, as a
// dependency is. In the standard library, such variants are two thirds
// of the repository packages' identifiers.
func recompiled(id string, nodes map[string]*node) bool {
	path, variant, ok := cutVariant(id)
	return ok && variant != path+".test" && nodes[path] != nil
}

// prepare reads a package's files (its repository files whole, the
// others' sizes) and hashes them with what else the package's check
// depends on but its dependencies' APIs (see keyOf). A repository file's
// id is its blob's (see fileSums), which the export names or which is
// computed once per load. Its contents are not kept: a load would hold
// the whole repository's source until the checks, which read the files
// again from the page cache, are done.
func (l *loader) prepare(n *node, r roots, sums *fileSums) {
	h := sha256.New()
	fmt.Fprintf(h, "unit\x00%s\x00%s\x00%s\x00%t\x00%t\x00", n.lp.ImportPath, n.lp.Name, n.dir, n.local, n.full)
	if e := n.lp.listError(); e != "" {
		n.problems = append(n.problems, e)
	}
	if len(n.lp.CgoFiles) > 0 {
		n.problems = append(n.problems, fmt.Sprintf("%d cgo files left out (navigation runs with CGO_ENABLED=0)", len(n.lp.CgoFiles)))
	}
	for i, f := range n.lp.GoFiles {
		host := filepath.Join(n.lp.Dir, f)
		name, ok := r.display(host)
		if !ok {
			n.problems = append(n.problems, fmt.Sprintf("file %s is outside the export, GOROOT and the module cache; left out", f))
			continue
		}
		fi := statFile(n, i, host)
		if fi.err != nil {
			n.problems = append(n.problems, fmt.Sprintf("%s cannot be read; left out", name))
			continue
		}
		if fi.size > l.maxFileBytes {
			n.problems = append(n.problems, fmt.Sprintf("%s is %d bytes, over the %d-byte limit; left out", name, fi.size, l.maxFileBytes))
			continue
		}
		if n.local {
			sum, err := sums.sum(host)
			if err != nil {
				n.problems = append(n.problems, fmt.Sprintf("%s cannot be read; left out", name))
				continue
			}
			fmt.Fprintf(h, "%s\x00%s\x00", name, sum)
		} else {
			// GOROOT and the module cache do not change under a path
			// without its size or time changing.
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", name, fi.size, fi.modTime.UnixNano())
		}
		n.names = append(n.names, name)
		n.hosts = append(n.hosts, host)
	}
	for _, p := range n.problems {
		fmt.Fprintf(h, "problem\x00%s\x00", p)
	}
	n.files = h.Sum(nil)
}

// statFile returns the stats of a package's i-th Go file, at host: a
// repository file's read now, another's once per listing (outsideStats).
func statFile(n *node, i int, host string) fileStat {
	if !n.local && n.lp.outside != nil {
		return n.lp.outside.stat(n.lp, i)
	}
	fi, err := os.Stat(host)
	if err != nil {
		return fileStat{err: err}
	}
	return fileStat{size: fi.Size(), modTime: fi.ModTime()}
}

// checkAll finds or type-checks the nodes, given in dependency order;
// it returns how many were checked.
func (l *loader) checkAll(ctx context.Context, order []*node) (int, error) {
	return l.run(ctx, order, newDeferred(l, nil, nil, order))
}

// run finds or type-checks the nodes of todo, given in dependency order,
// that d lets it claim, on the loader's workers: a node waits for its
// dependencies, which come before it and so are checked or being
// checked, here or by another run, since its key holds their API keys.
// When ctx ends, it claims no more, and finishes those it claimed. It
// returns how many it checked.
func (l *loader) run(ctx context.Context, todo []*node, d *deferred) (int, error) {
	jobs := make(chan *node)
	var wg sync.WaitGroup
	var done, checked atomic.Int64
	for range min(max(l.workers, 1), len(todo)) {
		wg.Go(func() {
			for n := range jobs {
				for _, dep := range n.deps {
					<-dep.done
				}
				if l.settle(n) {
					checked.Add(1)
				}
				// Done before counted: when none is left, every
				// node is checked (program.complete).
				close(n.done)
				d.left.Add(-1)
				if l.progress != nil {
					l.progress(int(done.Add(1)), len(todo))
				}
			}
		})
	}
	var err error
	for _, n := range todo {
		if err = ctx.Err(); err != nil {
			break
		}
		if d.claim(n) {
			jobs <- n
		}
	}
	close(jobs)
	wg.Wait()
	return int(checked.Load()), err
}

// settle gives a node whose dependencies are done its unit: one an
// earlier load left with the same key, one read from the store, or its
// check's. It reports whether it checked it.
func (l *loader) settle(n *node) bool {
	n.key = keyOf(n)
	if n.unit = l.cache.get(n.key); n.unit != nil {
		return false
	}
	checked := false
	if n.unit = l.read(n); n.unit == nil {
		n.unit = l.check(n)
		checked = true
	}
	l.cache.put(n.unit)
	return checked
}

// newUnit returns the unit of a node, to be checked or read.
func newUnit(n *node) *unit {
	u := &unit{id: n.lp.ImportPath, path: n.lp.ImportPath, name: n.lp.Name, dir: n.dir, local: n.local, key: n.key, problems: slices.Clone(n.problems), listed: n.problems}
	if n.lp.ForTest != "" || u.test() {
		u.path, _, _ = cutVariant(n.lp.ImportPath)
	}
	return u
}

// check parses and type-checks one package, and keeps it in the store:
// without its function bodies, which is what its importers need, unless
// it is to be checked in full and the query that starts the load reads
// its index (indexNow): then with them, and indexed. A package to be
// checked in full that the query does not read has its bodies checked,
// their type errors found and its index built when a query first needs
// its index (indexLater, checkBodies); a result that does not read it
// does not depend on them (see program.precision). Its entry, which
// holds the index, is written then. It never fails: what goes wrong
// becomes the unit's problems.
func (l *loader) check(n *node) *unit {
	depth := declarations
	if n.full && l.indexNow != nil && l.indexNow(n) {
		depth = indexed
	}
	u, files, info := l.typeCheck(n, depth)
	var ix *unitIndex
	if depth == indexed {
		ix = l.buildIndex(u, files, info)
	}
	l.keep(n, u, files, ix)
	switch {
	case ix != nil:
		u.setIndex(ix)
	case n.full:
		l.indexLater(n, u)
	}
	u.t.api = l.cache.api(u.apiKey, u.t.types)
	return u
}

func (l *loader) buildIndex(u *unit, files []*ast.File, info *types.Info) *unitIndex {
	return buildIndex(l.fset, u, files, info, func(obj types.Object) string { return objectKey(l.fset, l.tables, obj) })
}

// checkDepth says what a check looks at.
type checkDepth int

const (
	declarations checkDepth = iota // what importers need: no function bodies
	indexed                        // function bodies too, and what the index records of each identifier
)

// typeCheck parses and type-checks one package to depth; info is nil
// unless depth is indexed.
func (l *loader) typeCheck(n *node, depth checkDepth) (*unit, []*ast.File, *types.Info) {
	u := newUnit(n)
	var files []*ast.File
	for i, name := range n.names {
		src, err := os.ReadFile(n.hosts[i])
		if err != nil {
			u.problems = append(u.problems, fmt.Sprintf("%s cannot be read; left out", name))
			continue
		}
		f, err := l.parse(name, n.hosts[i], src, depth)
		if err != nil {
			u.problems = append(u.problems, parseProblem(err))
		}
		if f != nil {
			files = append(files, f)
			u.fileNames = append(u.fileNames, name)
		}
	}
	var typeErrs int
	conf := types.Config{
		IgnoreFuncBodies: depth == declarations,
		FakeImportC:      true,
		Sizes:            types.SizesFor("gc", "amd64"),
		Importer:         depsImporter(n),
		Error: func(err error) {
			if typeErrs < maxTypeErrors {
				u.problems = append(u.problems, typeProblem(err))
			}
			typeErrs++
		},
	}
	var info *types.Info
	if depth == indexed {
		// The index records Defs and Uses (see calleeOf for calls).
		info = &types.Info{
			Defs: map[*ast.Ident]types.Object{},
			Uses: map[*ast.Ident]types.Object{},
		}
	}
	u.t.types, _ = conf.Check(u.path, l.fset, files, info)
	if typeErrs > maxTypeErrors {
		u.problems = append(u.problems, fmt.Sprintf("and %d more type errors", typeErrs-maxTypeErrors))
	}
	return u, files, info
}

// parse parses a file of a package, read from host into src, for a
// check to depth: for declarations only, with its functions' bodies
// blanked out (blankBodies), unless that parse fails, when the file's
// own parse says why.
func (l *loader) parse(name, host string, src []byte, depth checkDepth) (*ast.File, error) {
	if depth != declarations || !blankBodies(src) {
		return parser.ParseFile(l.fset, name, src, parser.SkipObjectResolution)
	}
	f, err := parser.ParseFile(l.fset, name, src, parser.SkipObjectResolution)
	if err == nil {
		return f, nil
	}
	if f != nil {
		l.fset.RemoveFile(l.fset.File(f.FileStart))
	}
	if src, err = os.ReadFile(host); err != nil {
		return nil, err
	}
	return parser.ParseFile(l.fset, name, src, parser.SkipObjectResolution)
}

// depsImporter imports a node's dependencies' API packages.
func depsImporter(n *node) types.Importer {
	byID := map[string]*node{}
	for _, d := range n.deps {
		byID[d.lp.ImportPath] = d
	}
	return importerFunc(func(path string) (*types.Package, error) {
		id := path
		if m, ok := n.lp.ImportMap[path]; ok {
			id = m
		}
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		d := byID[id]
		if d == nil || d.unit == nil || d.unit.api() == nil {
			return nil, fmt.Errorf("package %s was not loaded", path)
		}
		return d.unit.api(), nil
	})
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// cutVariant splits "p [q.test]" into p and q.test.
func cutVariant(id string) (path, variant string, ok bool) {
	i := len(id) - 1
	if i < 0 || id[i] != ']' {
		return id, "", false
	}
	for j := i; j >= 0; j-- {
		if id[j] == '[' && j > 0 && id[j-1] == ' ' {
			return id[:j-1], id[j+1 : i], true
		}
	}
	return id, "", false
}

// parseProblem and typeProblem word a package's errors for a result.
func parseProblem(err error) string {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		if len(list) > 1 {
			return fmt.Sprintf("syntax error: %v (and %d more)", list[0], len(list)-1)
		}
		return fmt.Sprintf("syntax error: %v", list[0])
	}
	return fmt.Sprintf("syntax error: %v", err)
}

func typeProblem(err error) string {
	var te types.Error
	if errors.As(err, &te) {
		return fmt.Sprintf("type error: %s: %s", te.Fset.Position(te.Pos), te.Msg)
	}
	return "type error: " + err.Error()
}
