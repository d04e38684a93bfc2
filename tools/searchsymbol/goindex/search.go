package goindex

import (
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Entry is one declaration found by a search.
type Entry struct {
	Name          string // the declared name
	QualifiedName string // pkg.Name, pkg.Type.Method, pkg.Struct.Field; the import path for a package
	Kind          Kind
	Package       string // import path
	PackageName   string
	// Container is the type a method, field or interface method belongs to,
	// with a leading * for a pointer receiver.
	Container       string
	File            string // slash-separated path in the snapshot
	Line            int    // 1-based
	Column          int    // 1-based, in bytes
	Exported        bool   // the name is exported (whether its container is, is not considered)
	Signature       string // the declaration's header, white space collapsed
	Doc             string // the first sentence of its doc comment
	Test            bool   // declared in a _test.go file
	BuildConstraint string // the file's //go:build expression and what its name implies (_linux.go), if any
	Match           string // how the name matched: exact, exact_fold, prefix, initials, substring, fuzzy or regexp
}

// Result is one page of a search.
type Result struct {
	Entries    []Entry
	Total      int  // matches in all pages
	Truncated  bool // more matches follow this page
	NextCursor string
	Facts      Facts
}

// Search runs q over the index. Its errors are [errclass.Error]s of class
// invalid_input: a malformed query or a cursor that this index and query
// did not make.
func (x *Index) Search(q Query) (*Result, error) {
	c, err := compileQuery(q)
	if err != nil {
		return nil, err
	}
	offset := 0
	if q.Cursor != "" {
		if offset, err = x.decodeCursor(q.Cursor, c.print); err != nil {
			return nil, err
		}
	}
	top := bestKeys{max: offset + c.limit}
	total := 0
	files := c.fileFilter(x)
	visitEntries := func(n *nameRec, t tier, score int) {
		prefix := uint64(t)<<tierShift | uint64(1023-score)<<scoreShift
		for _, e := range x.byName[n.first : n.first+n.count] {
			ref := &x.entries[e]
			if !c.admits(x, ref, files) {
				continue
			}
			total++
			top.offer(prefix | ref.rank)
		}
	}
	visit := func(i int) {
		d := x.nameData(i)
		t, score := c.classify(&d)
		if t == noMatch {
			return
		}
		visitEntries(&x.names[i], t, score)
	}
	switch {
	case c.maxTier == tierExact && c.name != "":
		if i, ok := x.lookupName(c.name); ok {
			visit(i)
		}
	case c.re != nil:
		for _, i := range x.matchRegexp(c) {
			visitEntries(&x.names[i], tierRegexp, 0)
		}
	default:
		// Most names lack a character of the query, or, when only
		// prefixes match, start with another: skip them on a scan of
		// the masks alone.
		var leadMask, want uint64
		if c.maxTier <= tierPrefix && c.lower != "" {
			leadMask, want = leadBits, lead(c.lower)
		}
		for i, m := range x.masks {
			if c.mask&^m == 0 && m&leadMask == want {
				visit(i)
			}
		}
	}
	if offset > total {
		return nil, invalidInput("cursor is past the end of the results")
	}
	keys := top.sorted()
	page := keys[min(offset, len(keys)):]
	res := &Result{Total: total, Facts: x.facts, Entries: make([]Entry, len(page))}
	for i, k := range page {
		res.Entries[i] = x.entry(k)
	}
	if end := offset + len(page); end < total {
		res.Truncated = true
		res.NextCursor = x.encodeCursor(c.print, end)
	}
	return res, nil
}

// entry materializes the entry of a ranking key. Its strings are copies:
// an index loaded from disk is unmapped when it is dropped, and an entry
// may outlive it.
func (x *Index) entry(key uint64) Entry {
	ref := &x.entries[uint32(key)]
	f := &x.files[ref.file]
	str := func(r strRef) string { return strings.Clone(x.str(r)) }
	pkgName, importPath, path := str(f.pkgName), str(f.importPath), str(f.path)
	e := Entry{
		Kind:            ref.kind,
		Package:         importPath,
		PackageName:     pkgName,
		File:            path,
		Test:            f.test(),
		BuildConstraint: fileConstraint(path, str(f.constraint)),
		Exported:        ref.rank&rankUnexported == 0,
		Match:           tier(key >> tierShift).String(),
	}
	if ref.sym < 0 {
		e.Name, e.QualifiedName = pkgName, importPath
		if e.Test && strings.HasSuffix(pkgName, "_test") {
			e.QualifiedName += "_test" // an external test package
		}
		e.Line, e.Column = int(f.pkgLine), int(f.pkgCol)
		e.Signature, e.Doc = "package "+pkgName, str(f.pkgDoc)
		return e
	}
	s := &x.syms[f.firstSym+ref.sym]
	e.Name, e.Line, e.Column, e.Signature, e.Doc = str(s.name), int(s.line), int(s.col), str(s.sig), str(s.doc)
	e.QualifiedName = pkgName + "." + e.Name
	if s.container.len != 0 {
		container := str(s.container)
		e.QualifiedName = pkgName + "." + container + "." + e.Name
		e.Container = container
		if s.ptrRecv {
			e.Container = "*" + container
		}
	}
	return e
}

// bestKeys keeps the max smallest keys offered, in a max-heap.
type bestKeys struct {
	max  int
	keys []uint64
}

func (b *bestKeys) offer(k uint64) {
	h := b.keys
	switch {
	case len(h) < b.max:
		h = append(h, k)
		for i := len(h) - 1; i > 0; { // sift up
			p := (i - 1) / 2
			if h[p] >= h[i] {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		b.keys = h
	case len(h) > 0 && k < h[0]:
		h[0] = k
		for i := 0; ; { // sift down
			l, big := 2*i+1, i
			if l < len(h) && h[l] > h[big] {
				big = l
			}
			if r := l + 1; r < len(h) && h[r] > h[big] {
				big = r
			}
			if big == i {
				break
			}
			h[i], h[big] = h[big], h[i]
			i = big
		}
	}
}

func (b *bestKeys) sorted() []uint64 {
	slices.Sort(b.keys)
	return b.keys
}

// regexpChunk is the number of names one goroutine matches against a
// regular expression: RE2 is linear but not fast, so a large index spreads
// the work over the cores.
const regexpChunk = 16 << 10

// matchRegexp returns the numbers of the names c's regular expression
// matches, in order.
func (x *Index) matchRegexp(c *compiledQuery) []int32 {
	chunks := (len(x.names) + regexpChunk - 1) / regexpChunk
	found := make([][]int32, chunks)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for k := range chunks {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			for i := k * regexpChunk; i < min((k+1)*regexpChunk, len(x.names)); i++ {
				d := x.nameData(i)
				if t, _ := c.classify(&d); t != noMatch {
					found[k] = append(found[k], int32(i))
				}
			}
		})
	}
	wg.Wait()
	return slices.Concat(found...)
}
