package gonav

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
)

// A query reads the indexes of the repository packages it needs, and
// no others: a package's index may still have to be built, by checking
// its function bodies (bodies.go). What each relation needs:
//   - definition, package_api: nothing, or the package's own index (its
//     package clauses);
//   - a position: the packages holding the file;
//   - references: the packages whose files hold the name, as bytes (a
//     use or a declaration spells it; a related method's use too), or
//     the import path for a package's references;
//   - implementations: the target's own packages, for the types declared
//     in their functions (localTypes);
//   - callers and callees: every package, the call graph being the whole
//     repository's.

// progressKey carries a call's progress reporter (withProgress).
type progressKey struct{}

// withProgress has the packages a query checks reported to report as
// they are done.
func withProgress(ctx context.Context, report func(done, total int, msg string)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// readsKey carries the units a query reads (withReads).
type readsKey struct{}

// unitsRead are the repository packages whose indexes a query read: its
// precision lists those of them that did not type-check with every
// problem, which is complete once a unit's index is built (checkBodies),
// and the others only with the problems their listing gave (see
// unit.listed). The set depends on the query alone, not on which indexes
// earlier queries or the background build left ready: references count
// a package read when its index names the identifier, not when it was
// merely scanned.
type unitsRead struct {
	mu    sync.Mutex
	units map[*unit]bool
}

// withReads returns a context whose queries note the units they read in
// the set returned.
func withReads(ctx context.Context) (context.Context, *unitsRead) {
	r := &unitsRead{units: map[*unit]bool{}}
	return context.WithValue(ctx, readsKey{}, r), r
}

// noteRead adds units to the context's set of units read; they have an
// index, built already.
func noteRead(ctx context.Context, units ...*unit) {
	r, _ := ctx.Value(readsKey{}).(*unitsRead)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range units {
		r.units[u] = true
	}
}

// has reports whether u was read; a nil set has none.
func (r *unitsRead) has(u *unit) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.units[u]
}

// indexesOf returns the indexes of units, in their order (nil for a unit
// without one), building those not built yet on the program's workers.
func (p *program) indexesOf(ctx context.Context, units []*unit) ([]*unitIndex, error) {
	out := make([]*unitIndex, len(units))
	var todo []int
	for i, u := range units {
		if ix, ok := u.indexReady(); ok || !u.indexed {
			out[i] = ix
		} else {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	report, _ := ctx.Value(progressKey{}).(func(done, total int, msg string))
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		errs = make([]error, len(units))
	)
	jobs := make(chan int)
	for range min(max(p.workers, 1), len(todo)) {
		wg.Go(func() {
			for i := range jobs {
				out[i], errs[i] = units[i].indexOf(ctx)
				if report != nil {
					mu.Lock()
					done++
					report(done, len(todo), fmt.Sprintf("checking the function bodies of the packages the query reads: %d of %d", done, len(todo)))
					mu.Unlock()
				}
			}
		})
	}
	for _, i := range todo {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mentioning returns the units among units whose Go files hold word: a
// unit whose index is built, all of them, since reading its index costs
// less than reading its files. A file read for one unit serves the
// others holding it (a package and its test variant).
func (p *program) mentioning(units []*unit, word string) []*unit {
	var out []*unit
	seen := map[string]bool{}
	for _, u := range units {
		if !u.indexed {
			continue
		}
		if _, ok := u.indexReady(); ok {
			out = append(out, u)
			continue
		}
		if slices.ContainsFunc(u.fileNames, func(name string) bool { return p.fileHolds(seen, name, word) }) {
			out = append(out, u)
		}
	}
	return out
}

// fileHolds reports whether a file holds word, remembering the answer
// in seen. A file that cannot be read holds it: its package is then
// read, as it would be without the scan.
func (p *program) fileHolds(seen map[string]bool, name, word string) bool {
	if holds, ok := seen[name]; ok {
		return holds
	}
	data, err := p.roots.readFile(name)
	holds := err != nil || bytes.Contains(data, []byte(word))
	seen[name] = holds
	return holds
}

// holding returns the units among units one of whose Go files is file.
func holding(units []*unit, file string) []*unit {
	var out []*unit
	for _, u := range units {
		if slices.Contains(u.fileNames, file) {
			out = append(out, u)
		}
	}
	return out
}

// indexRest builds the index of every repository package that has none
// yet, one at a time, until ctx ends: later queries then find them, and
// the type store gets their entries. One at a time leaves the other
// workers to the queries, which build what they need first.
func (p *program) indexRest(ctx context.Context) {
	for _, u := range p.localUnits() {
		if _, err := u.indexOf(ctx); err != nil {
			return
		}
	}
}

// indexHint says which packages the query that starts a load will read,
// as far as the load can tell before the query's target is resolved: for
// callers and callees, all; for a position, those holding the file; for
// references of a symbol, those whose files hold its last name. The load
// indexes them as it checks them (loader.indexNow); nil: none is known.
func indexHint(in GoNavigateIn) func(n *node) bool {
	switch {
	case in.Relation == Callers || in.Relation == Callees:
		return func(*node) bool { return true }
	case in.Path != "":
		file := path.Clean(in.Path)
		return func(n *node) bool { return slices.Contains(n.names, file) }
	case in.Relation == References:
		word := []byte(lastName(in.Symbol))
		return func(n *node) bool {
			return slices.ContainsFunc(n.hosts, func(host string) bool {
				data, err := os.ReadFile(host)
				return err != nil || bytes.Contains(data, word)
			})
		}
	}
	return nil
}

// lastName returns the last name of a symbol: M of pkg.T.M or
// (*pkg.T).M, the last element of an import path.
func lastName(symbol string) string {
	s := strings.TrimRight(symbol, "()*")
	return s[strings.LastIndexAny(s, "./()*")+1:]
}
