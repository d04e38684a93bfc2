package goindex

import (
	"crypto/sha256"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// Match selects how a query's name is compared with declared names.
type Match string

// The match modes. Each admits its own tier and every better one, and
// results are ranked by tier: exact, then exact ignoring case, then prefix,
// then camel-case initials, then substring, then fuzzy.
const (
	MatchAuto      Match = "auto"      // every tier
	MatchExact     Match = "exact"     // the name, case-sensitively
	MatchPrefix    Match = "prefix"    // a case-insensitive prefix
	MatchSubstring Match = "substring" // a case-insensitive substring
	MatchFuzzy     Match = "fuzzy"     // the characters in order, camel-case aware (srvr, NR)
	MatchRegexp    Match = "regexp"    // an RE2 regular expression over the name
)

// Limits on queries.
const (
	DefaultLimit   = 50
	MaxLimit       = 500
	MaxQueryLength = 256 // bytes
)

// Query is a symbol search.
//
// The query text is a name, optionally qualified: NewReader,
// bufio.NewReader, Reader.Read, bufio.Reader.Read, (*Server).Serve,
// net/http.Server or net/http (a package by import path). The last
// component is matched with the Match mode; the qualifiers before it must
// equal (ignoring case) the package name and the receiver, struct or
// interface type of the declaration. An empty query matches everything the
// filters let through.
type Query struct {
	Query        string
	Kinds        []string // kind names (see [KindNames]); "type" selects every type kind; empty: all
	Package      string   // import path prefix, at a path boundary: "net/http" holds net/http/httptest
	Path         string   // glob over file paths; ** spans directories; without a slash it matches base names
	ExportedOnly bool
	IncludeTests bool // include declarations in _test.go files
	Match        Match
	Limit        int    // 0 means DefaultLimit; at most MaxLimit
	Cursor       string // from a previous result's NextCursor
	// Allow, when set, admits a file by its path; entries of other files
	// are left out of the results and the totals. The search_symbol tool
	// passes the caller's authorization here, so that one index serves
	// every caller. It is called at most once per file per search, and only
	// for files holding candidate entries.
	Allow func(path string) bool
	// Progress, when set, is told how the build of the index goes, when
	// the search has to wait for one.
	Progress Progress
}

// compiledQuery is a validated Query, ready to run.
type compiledQuery struct {
	name       string   // the name part
	lower      string   // name, lower-cased
	mask       uint64   // charMask(lower)
	qualifiers []string // package and/or type qualifiers, outermost first
	pathPrefix string   // import path before the last '/', with the '/'
	maxTier    tier     // the worst tier the mode admits
	minFuzzy   int      // the shortest name part matched fuzzily
	re         *regexp.Regexp
	reLiteral  string // every match of re begins with it
	kinds      kindSet
	pkg        string
	glob       []string // split on '/'
	exported   bool
	tests      bool
	limit      int
	allow      func(string) bool
	print      [8]byte // fingerprint: binds cursors to the query
}

func invalidInput(format string, args ...any) error {
	return errclass.Errorf(errclass.InvalidInput, format, args...)
}

// compileQuery validates q. Its errors are [errclass.Error]s of class
// invalid_input.
func compileQuery(q Query) (*compiledQuery, error) {
	text := strings.TrimSpace(q.Query)
	if len(text) > MaxQueryLength {
		return nil, invalidInput("query is %d bytes long; the limit is %d", len(text), MaxQueryLength)
	}
	c := &compiledQuery{exported: q.ExportedOnly, tests: q.IncludeTests, limit: q.Limit, allow: q.Allow}
	switch {
	case c.limit == 0:
		c.limit = DefaultLimit
	case c.limit < 0 || c.limit > MaxLimit:
		return nil, invalidInput("limit %d is out of range: use 1 to %d", q.Limit, MaxLimit)
	}
	var err error
	if c.kinds, err = parseKinds(q.Kinds); err != nil {
		return nil, invalidInput("%v", err)
	}
	c.pkg = strings.Trim(strings.TrimSpace(q.Package), "/")
	if q.Path != "" {
		if _, err := path.Match(q.Path, ""); err != nil || len(q.Path) > MaxQueryLength {
			return nil, invalidInput("path glob %q is malformed", truncate(q.Path, 80))
		}
		c.glob = strings.Split(strings.Trim(q.Path, "/"), "/")
	}

	switch m := Match(strings.ToLower(string(q.Match))); m {
	case "", MatchAuto:
		// Fuzzy matches of one or two characters are mostly noise; the
		// initials tier serves short queries.
		c.maxTier, c.minFuzzy = tierFuzzy, 3
	case MatchFuzzy:
		c.maxTier = tierFuzzy
	case MatchExact:
		c.maxTier = tierExact
	case MatchPrefix:
		c.maxTier = tierPrefix
	case MatchSubstring:
		c.maxTier = tierSubstring
	case MatchRegexp:
		c.maxTier = tierRegexp
		if c.re, err = regexp.Compile(text); err != nil {
			return nil, invalidInput("query is not a valid RE2 regular expression: %v", err)
		}
		c.reLiteral, _ = c.re.LiteralPrefix()
	default:
		return nil, invalidInput("unknown match mode %q (known: auto, exact, prefix, substring, fuzzy, regexp)", truncate(string(q.Match), 40))
	}
	if c.re == nil {
		c.parseName(text)
	}
	c.print = fingerprint(q, text)
	return c, nil
}

// parseName splits a qualified query into its parts.
func (c *compiledQuery) parseName(text string) {
	// (*T).M and (T).M name a method of T.
	if strings.HasPrefix(text, "(") {
		if i := strings.Index(text, ")."); i > 0 {
			text = strings.TrimPrefix(text[1:i], "*") + text[i+1:]
		}
	}
	if i := strings.LastIndexByte(text, '/'); i >= 0 {
		c.pathPrefix, text = text[:i+1], text[i+1:]
	}
	parts := strings.Split(text, ".")
	c.name = parts[len(parts)-1]
	c.qualifiers = parts[:len(parts)-1]
	c.lower = strings.ToLower(c.name)
	c.mask = charMask(c.lower)
}

// fingerprint digests everything that selects and orders results, so that
// a cursor is only used with the query that made it.
func fingerprint(q Query, text string) [8]byte {
	kinds := slices.Clone(q.Kinds)
	slices.Sort(kinds)
	h := sha256.New()
	for _, s := range []string{text, strings.Join(kinds, ","), q.Package, q.Path,
		strconv.FormatBool(q.ExportedOnly), strconv.FormatBool(q.IncludeTests), strings.ToLower(string(q.Match))} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	var p [8]byte
	copy(p[:], h.Sum(nil))
	return p
}

// classify returns how well the distinct name n matches, and for fuzzy
// matches a score (higher is better).
func (c *compiledQuery) classify(n *nameData) (tier, int) {
	if c.re != nil {
		if strings.Contains(n.name, c.reLiteral) && c.re.MatchString(n.name) {
			return tierRegexp, 0
		}
		return noMatch, 0
	}
	if c.name == "" {
		return tierExact, 0
	}
	if c.mask&^n.mask != 0 {
		return noMatch, 0
	}
	t := noMatch
	switch {
	case n.name == c.name:
		t = tierExact
	case n.lower == c.lower:
		t = tierFoldExact
	case strings.HasPrefix(n.lower, c.lower):
		t = tierPrefix
	case len(c.lower) >= 2 && c.maxTier >= tierFuzzy && strings.HasPrefix(n.initials, c.lower):
		t = tierCamel
	case c.maxTier >= tierSubstring && strings.Contains(n.lower, c.lower):
		t = tierSubstring
	case c.maxTier >= tierFuzzy && len(c.lower) >= c.minFuzzy:
		if s, ok := fuzzyScore(n, c.lower); ok {
			return tierFuzzy, s
		}
	}
	if t > c.maxTier {
		return noMatch, 0
	}
	return t, 0
}

// admits reports whether the filters and qualifiers let entry e through.
func (c *compiledQuery) admits(x *Index, e *entryRef, files *fileGate) bool {
	if !c.kinds.has(e.kind) || !c.tests && e.rank&rankTest != 0 || c.exported && e.rank&rankUnexported != 0 {
		return false
	}
	if files != nil && !files.admits(e.file) {
		return false
	}
	if len(c.qualifiers) == 0 && c.pathPrefix == "" {
		return true
	}
	f := &x.files[e.file]
	importPath := x.str(f.importPath)
	if e.kind == KindPackage {
		if len(c.qualifiers) > 0 {
			return false
		}
		return hasPathSuffix(importPath, c.pathPrefix+x.name(e))
	}
	// The qualifiers, right-aligned, name the container type, then the
	// package: its name, or the last element of its import path, which may
	// itself hold dots (gopkg.in/yaml.v3.Marshal).
	s := &x.syms[f.firstSym+e.sym]
	q := c.qualifiers
	if s.container.len != 0 && len(q) > 0 {
		if !strings.EqualFold(q[len(q)-1], x.str(s.container)) {
			return false
		}
		q = q[:len(q)-1]
	}
	if len(q) == 0 {
		return c.pathPrefix == ""
	}
	pkg := strings.Join(q, ".")
	if !strings.EqualFold(pkg, x.str(f.pkgName)) && !strings.EqualFold(pkg, path.Base(importPath)) {
		return false
	}
	return c.pathPrefix == "" || hasPathSuffix(importPath, c.pathPrefix+pkg)
}

// hasPathSuffix reports whether import path p is suffix or ends with
// "/"+suffix.
func hasPathSuffix(p, suffix string) bool {
	return p == suffix || strings.HasSuffix(p, "/"+suffix)
}

// fileGate decides which files pass the package, path and Allow filters,
// each file once and only when one of its entries is a candidate.
type fileGate struct {
	c    *compiledQuery
	x    *Index
	memo []int8 // 0: not decided yet; 1: admitted; -1: refused
}

// fileFilter returns the query's file gate, or nil when it has no file
// filters.
func (c *compiledQuery) fileFilter(x *Index) *fileGate {
	if c.pkg == "" && c.glob == nil && c.allow == nil {
		return nil
	}
	return &fileGate{c: c, x: x, memo: make([]int8, len(x.files))}
}

func (g *fileGate) admits(file int32) bool {
	if d := g.memo[file]; d != 0 {
		return d > 0
	}
	f, c := &g.x.files[file], g.c
	importPath, p := g.x.str(f.importPath), g.x.str(f.path)
	// Allow gets a copy of the path: it may keep it, and the index's
	// strings live only as long as the index.
	ok := (c.pkg == "" || importPath == c.pkg || strings.HasPrefix(importPath, c.pkg+"/")) &&
		(c.glob == nil || matchGlob(c.glob, p)) &&
		(c.allow == nil || c.allow(strings.Clone(p)))
	g.memo[file] = -1
	if ok {
		g.memo[file] = 1
	}
	return ok
}

// matchGlob matches a slash-separated path against a glob split on '/'.
// A "**" element matches any number of directories. A pattern of one
// element without "**" matches the base name.
func matchGlob(pattern []string, p string) bool {
	if len(pattern) == 1 && pattern[0] != "**" {
		ok, _ := path.Match(pattern[0], path.Base(p))
		return ok
	}
	return matchParts(pattern, strings.Split(p, "/"))
}

func matchParts(pattern, parts []string) bool {
	// ok[j] reports whether pattern[:i] matches parts[:j], row by row.
	ok := make([]bool, len(parts)+1)
	ok[0] = true
	for _, elem := range pattern {
		if elem == "**" {
			for j := 1; j <= len(parts); j++ {
				ok[j] = ok[j] || ok[j-1]
			}
			continue
		}
		for j := len(parts); j >= 1; j-- {
			m, _ := path.Match(elem, parts[j-1])
			ok[j] = ok[j-1] && m
		}
		ok[0] = false
	}
	return ok[len(parts)]
}
