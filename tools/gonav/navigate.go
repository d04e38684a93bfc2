package gonav

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// maxFailedShown bounds the failed packages a result lists.
const maxFailedShown = 20

func (sv *Service) navigate(ctx context.Context, req *server.Request, in GoNavigateIn) (GoNavigateOut, error) {
	if err := in.check(); err != nil {
		return GoNavigateOut{}, err
	}
	if in.Revision == workspace.WorktreeRevision {
		return GoNavigateOut{}, server.Errorf(server.InvalidInput, "go_navigate reads committed revisions only, not the working tree").
			WithHint("commit, or name a revision; search_symbol reads the working tree")
	}
	snap, err := toolkit.Snapshot(ctx, sv.reg, req, in.Target)
	if err != nil {
		return GoNavigateOut{}, err
	}
	key, ok := snap.ExportKey(exportOptions())
	if !ok {
		return GoNavigateOut{}, server.Errorf(server.InvalidInput, "go_navigate reads committed revisions only")
	}
	start := time.Now()
	l, err := sv.program(ctx, req, snap, key, indexHint(in), loadWants(in))
	if err != nil {
		return GoNavigateOut{}, err
	}
	p := l.prog
	defer p.forget()
	defer p.indexInBackground(sv.loader.store, sv.beforeIndexRest)
	ctx = withProgress(ctx, func(done, total int, msg string) { req.Progress(float64(done), float64(total), msg) })
	ctx, reads := withReads(ctx)
	out := GoNavigateOut{Revision: snap.Revision().SHA, Relation: in.Relation, Results: []Location{}}
	out.Precision.Load = LoadFacts{Packages: p.total}
	if l.dur > 0 { // this call waited for the load
		out.Precision.Load.Checked, out.Precision.Load.DurationMS = p.checked, l.dur.Milliseconds()
	}
	t, cands, err := sv.resolve(ctx, snap, p, in)
	if err != nil {
		return out, err
	}
	if cands != nil {
		for _, c := range cands {
			loc, err := p.describe(ctx, c)
			if err != nil {
				return out, err
			}
			out.Candidates = append(out.Candidates, loc)
		}
		p.withText(out.Candidates)
		out.Precision = p.precision(out.Precision, reads)
		return out, nil
	}
	described, err := p.describe(ctx, t)
	if err != nil {
		return out, err
	}
	targets := []Location{described}
	p.withText(targets)
	out.Target = &targets[0]
	results, err := p.answer(ctx, t, in)
	if err != nil {
		return out, err
	}
	if in.ExcludeTests {
		results = slices.DeleteFunc(results, func(l Location) bool { return l.Test })
	}
	if in.Relation != PackageAPI {
		results = sortLocations(results)
	}
	if err := out.page(results, in, key); err != nil {
		return out, err
	}
	p.withText(out.Results)
	out.Precision = p.precision(out.Precision, reads)
	if in.Relation == Callers || in.Relation == Callees {
		out.Precision.CallGraph = callGraphNote
	}
	sv.log.Debug("go_navigate: answered", "request_id", req.ID, "relation", in.Relation, "results", out.Total, "duration", time.Since(start))
	return out, nil
}

// check validates what the schema cannot: a symbol or a whole position,
// and a relation that applies.
func (in GoNavigateIn) check() error {
	hasPos := in.Path != "" || in.Line != 0 || in.Column != 0
	switch {
	case in.Symbol != "" && hasPos:
		return server.Errorf(server.InvalidInput, "give symbol, or path with line and column, not both")
	case in.Symbol == "" && !hasPos:
		return server.Errorf(server.InvalidInput, "give symbol, or path with line and column")
	case hasPos && (in.Path == "" || in.Line == 0 || in.Column == 0):
		return server.Errorf(server.InvalidInput, "a position needs path, line and column (1-based)")
	case hasPos && !strings.HasSuffix(in.Path, ".go"):
		return server.Errorf(server.InvalidInput, "path %q is not a Go file", in.Path)
	}
	return nil
}

// resolve finds the target of a query, or the candidates of an
// ambiguous symbol.
func (sv *Service) resolve(ctx context.Context, snap *workspace.Snapshot, p *program, in GoNavigateIn) (*target, []*target, error) {
	if in.Symbol != "" {
		return p.resolveSymbol(ctx, in.Symbol, indexHint(in))
	}
	clean, err := snap.Authorize(in.Path, false)
	if err != nil {
		return nil, nil, err
	}
	t, err := p.resolvePosition(ctx, clean, in.Line, in.Column)
	return t, nil, err
}

// answer computes a relation's results.
func (p *program) answer(ctx context.Context, t *target, in GoNavigateIn) ([]Location, error) {
	isFunc := t.obj != nil && (kindOf(t.obj) == "func" || kindOf(t.obj) == "method")
	depth := cmp.Or(in.Depth, 1)
	switch in.Relation {
	case Definition:
		return p.definition(ctx, t)
	case References:
		return p.references(ctx, t)
	case Implementations:
		if tn, _ := typeOf(t.obj); tn == nil {
			return nil, server.Errorf(server.InvalidInput, "implementations needs a type or a method, not a %s", t.kind())
		}
		return p.implementations(ctx, t)
	case Callers, Callees:
		if !isFunc {
			return nil, server.Errorf(server.InvalidInput, "%s needs a function or a method, not a %s", in.Relation, t.kind())
		}
		if in.Relation == Callers {
			return p.callers(ctx, t, min(depth, maxDepth))
		}
		return p.callees(ctx, t, min(depth, maxDepth))
	case PackageAPI:
		if t.obj != nil || t.unit == nil {
			return nil, server.Errorf(server.InvalidInput, "package_api needs a package (an import path), not a %s", t.kind())
		}
		return p.packageAPI(ctx, t.unit)
	}
	return nil, server.Errorf(server.InvalidInput, "unknown relation %q", in.Relation)
}

// describe renders a target as a location with its signature.
func (p *program) describe(ctx context.Context, t *target) (Location, error) {
	if t.obj == nil {
		loc := Location{File: t.unit.dir, Kind: "package", Name: t.unit.path, Package: t.unit.path, Signature: "package " + t.unit.name}
		clauses, err := p.packageClauses(ctx, t.unit)
		if len(clauses) > 0 {
			loc = clauses[0]
			loc.Signature = "package " + t.unit.name
		}
		return loc, err
	}
	loc := p.location(t.obj.Pos(), kindOf(t.obj), pkgPath(t.obj))
	loc.Name = qualified(t.obj)
	if t.obj.Pkg() != nil {
		loc.Signature = truncate(typesObjectString(t.obj), maxSignature)
	}
	return loc, nil
}

// kind is the kind describe gives a target.
func (t *target) kind() string {
	if t.obj == nil {
		return "package"
	}
	return kindOf(t.obj)
}

// withText fills in the text of the lines locations name. Only the
// results a page returns get it: reading the files of every result of a
// large query was most of its time.
func (p *program) withText(locs []Location) {
	for i := range locs {
		if locs[i].Line > 0 {
			locs[i].Text = p.lineText(locs[i].File, locs[i].Line)
		}
	}
}

// sortLocations orders results by file, line, column and kind, and drops
// duplicates (a file checked as a package and as its test variant yields
// each result twice).
func sortLocations(locs []Location) []Location {
	slices.SortFunc(locs, func(a, b Location) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Via, b.Via), cmp.Compare(a.Depth, b.Depth))
	})
	return slices.CompactFunc(locs, func(a, b Location) bool {
		return a.File == b.File && a.Line == b.Line && a.Column == b.Column && a.Kind == b.Kind && a.Name == b.Name && a.Via == b.Via
	})
}

// page cuts one page of results; the cursor carries the offset and a
// digest of the query, so that it cannot continue another.
func (o *GoNavigateOut) page(all []Location, in GoNavigateIn, key string) error {
	digest := queryDigest(in, key)
	off := 0
	if in.Cursor != "" {
		d, n, ok := strings.Cut(in.Cursor, ".")
		v, err := strconv.Atoi(n)
		if !ok || d != digest || err != nil || v < 0 || v > len(all) {
			return server.Errorf(server.InvalidInput, "cursor %q does not continue this query", in.Cursor).
				WithHint("give the next_cursor of the previous page with the same other arguments")
		}
		off = v
	}
	limit := min(cmp.Or(in.Limit, DefaultLimit), maxLimit)
	end := min(off+limit, len(all))
	o.Results, o.Total = append(o.Results, all[off:end]...), len(all)
	if end < len(all) {
		o.Truncated, o.NextCursor = true, digest+"."+strconv.Itoa(end)
	}
	return nil
}

func queryDigest(in GoNavigateIn, key string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%d\x00%t\x00%d", key, in.Relation, in.Symbol, in.Path, in.Line, in.Column, in.ExcludeTests, in.Depth)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// precision says how the results were found: typed when every
// repository package type-checked, partial when some did not, syntactic
// when go list could not run. A package the query read the index of
// (reads) says all its problems, its function bodies' type errors
// included; another, what its listing said (unit.listed): its bodies may
// not have been checked yet, and the answer does not depend on them. So
// does a package the query did not read that has no index (its test
// variant has it), and a test variant it did not read: either may not
// have been checked at all (see deferred).
func (p *program) precision(prec Precision, reads *unitsRead) Precision {
	prec.Mode = "typed"
	var failed []PackageProblem
	for _, n := range p.lazy.local {
		if problems := problemsOf(n, reads); len(problems) > 0 {
			failed = append(failed, PackageProblem{Package: n.lp.ImportPath, Problems: problems})
		}
	}
	switch {
	case p.listFailed != "":
		prec.Mode, prec.Reason = "syntactic", p.listFailed+"; each directory was checked alone, without its imports: uses of imported names are matched by name"
	case len(failed) > 0:
		prec.Mode, prec.Reason = "partial", "some packages did not type-check: in them, identifiers without type information are matched by name (syntactic_reference)"
	}
	prec.FailedTotal = len(failed)
	prec.Failed = failed[:min(len(failed), maxFailedShown)]
	return prec
}

// problemsOf returns the problems precision says of a repository
// package.
func problemsOf(n *node, reads *unitsRead) []string {
	if !n.checked() {
		return n.problems // what its listing said
	}
	if u := n.unit; reads.has(u) {
		return u.problems
	}
	return n.problems
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
