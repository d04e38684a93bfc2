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
	var visitEntries func(n *nameInfo, t tier, score int)
	visit := func(i int) {
		n := &x.names[i]
		t, score := c.classify(&n.nameData)
		if t == noMatch {
			return
		}
		visitEntries(n, t, score)
	}
	visitEntries = func(n *nameInfo, t tier, score int) {
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
		// Most names lack a character of the query: skip them on a scan
		// of the masks alone.
		for i, m := range x.masks {
			if c.mask&^m == 0 {
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

// entry materializes the entry of a ranking key.
func (x *Index) entry(key uint64) Entry {
	ref := &x.entries[uint32(key)]
	f := &x.files[ref.file]
	pf := f.pf
	e := Entry{
		Kind:            ref.kind,
		Package:         f.importPath,
		PackageName:     pf.pkgName,
		File:            f.path,
		Test:            f.test(),
		BuildConstraint: fileConstraint(f.path, pf.constraint),
		Exported:        ref.rank&rankUnexported == 0,
		Match:           tier(key >> tierShift).String(),
	}
	if ref.sym < 0 {
		e.Name, e.QualifiedName = pf.pkgName, f.importPath
		if e.Test && strings.HasSuffix(pf.pkgName, "_test") {
			e.QualifiedName += "_test" // an external test package
		}
		e.Line, e.Column = int(pf.pkgLine), int(pf.pkgCol)
		e.Signature, e.Doc = "package "+pf.pkgName, pf.pkgDoc
		return e
	}
	s := &pf.syms[ref.sym]
	e.Name, e.Line, e.Column, e.Signature, e.Doc = s.name, int(s.line), int(s.col), s.sig, s.doc
	e.QualifiedName = pf.pkgName + "." + s.name
	if s.container != "" {
		e.QualifiedName = pf.pkgName + "." + s.container + "." + s.name
		e.Container = s.container
		if s.ptrRecv {
			e.Container = "*" + s.container
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
				if t, _ := c.classify(&x.names[i].nameData); t != noMatch {
					found[k] = append(found[k], int32(i))
				}
			}
		})
	}
	wg.Wait()
	return slices.Concat(found...)
}
