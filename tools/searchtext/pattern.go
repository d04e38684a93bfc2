package searchtext

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
)

// MaxPatternBytes bounds a pattern (the schema says so too).
const MaxPatternBytes = 1000

// matcher is a compiled pattern: the expression that finds matches and
// the index plan that finds candidates.
type matcher struct {
	re *regexp.Regexp
	// line is re for a text that is exactly one line: a leading ^ and a
	// trailing $ become text anchors, which Go's regexp exploits.
	line *regexp.Regexp
	plan textindex.Plan
	// lits are byte strings one of which every match holds, when the
	// expression has such: lines without any are never given to the
	// expression.
	lits [][]byte
	// rare are the offsets of the rarest byte of each of lits, which the
	// search for them looks for first.
	rare []int
	// prefix says the expression starts with a literal, which Go's
	// regexp finds fast in a whole file.
	prefix bool
	// bytes, when the expression has no literal to search for, rules out
	// lines that cannot match; high says it is highOnly.
	bytes *byteFilter
	high  bool
	// exact says the expression matches exactly the strings lits (or
	// fold's): a line holding one of them matches, and no expression need
	// run.
	exact bool
	// fold, when set, stands for the spellings of a case-insensitive
	// ASCII string, in place of lits.
	fold *asciiFold
	// before and after are the conditions at the start and end of an
	// exact matcher's literals (\bword\b, ^import, ;$); lineStart and
	// lineEnd say they hold ^ and $.
	before, after      []edge
	lineStart, lineEnd bool
	// lens are the lengths of lits.
	lens []int
	// class, when set, is the expression: whole lines of a class.
	class *lineClass
}

// compile turns the pattern arguments into a matcher. Matching is line by
// line: ^ and $ anchor at line ends, no class or dot matches a newline,
// and a pattern that needs a newline is refused.
func compile(in SearchTextIn) (*matcher, error) {
	if len(in.Pattern) > MaxPatternBytes {
		return nil, server.Errorf(server.InvalidInput, "pattern is %d bytes; at most %d", len(in.Pattern), MaxPatternBytes)
	}
	expr := in.Pattern
	if in.Mode == "" || in.Mode == "literal" {
		expr = regexp.QuoteMeta(expr)
	}
	// Perl syntax without OneLine (so ^ and $ are line anchors) and
	// without ClassNL (so negated classes leave out the newline).
	flags := syntax.Perl &^ (syntax.OneLine | syntax.ClassNL)
	re, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, server.Errorf(server.InvalidInput, "pattern is not a valid RE2 expression: %v", err)
	}
	switch in.Case {
	case "insensitive":
		flags |= syntax.FoldCase
	case "smart":
		if !hasUpperLiteral(re) {
			flags |= syntax.FoldCase
		}
	}
	if flags&syntax.FoldCase != 0 {
		if re, err = syntax.Parse(expr, flags); err != nil {
			return nil, server.Errorf(server.InvalidInput, "pattern is not a valid RE2 expression: %v", err)
		}
	}
	// Each line is a whole text to the expression: \A and \z are its
	// edges, as ^ and $ are. Left as they are, a search over a whole file
	// would take them for the file's edges.
	textAnchorsToLine(re)
	if in.WholeWord {
		re = &syntax.Regexp{Op: syntax.OpConcat, Flags: flags, Sub: []*syntax.Regexp{
			{Op: syntax.OpWordBoundary}, re, {Op: syntax.OpWordBoundary},
		}}
	}
	if err := withinLine(re); err != nil {
		return nil, err
	}
	re = re.Simplify()
	// The tree is compiled from its rendering, which is exact for every
	// operator (flags included, as (?i:...) groups).
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, server.Errorf(server.InvalidInput, "pattern cannot be compiled: %v", err)
	}
	m := &matcher{re: compiled, line: compiled, plan: textindex.NewPlan(re), lits: requiredLiterals(re)}
	if anchored, ok := anchorToText(re); ok {
		// Matching one line at a time, ^ and $ are the line's edges: as
		// \A and \z the expression is tried at one place only.
		if m.line, err = regexp.Compile(anchored.String()); err != nil {
			return nil, server.Errorf(server.InvalidInput, "pattern cannot be compiled: %v", err)
		}
	}
	if lp, _ := compiled.LiteralPrefix(); lp != "" {
		m.prefix = true
	}
	if before, after, middle := splitEdges(re); middle != nil {
		if fold, ok := foldedASCII(middle); ok {
			m.lits, m.fold, m.exact = nil, fold, true
		} else if lits, ok := exactLiterals(middle); ok && len(lits) <= maxLiterals && !slices.ContainsFunc(lits, isEmpty) {
			m.lits, m.exact = lits, true
		}
		if m.exact {
			m.before, m.after = before, after
			m.lineStart = slices.Contains(before, edge(syntax.OpBeginLine))
			m.lineEnd = slices.Contains(after, edge(syntax.OpEndLine))
		}
	}
	if m.lits == nil {
		m.bytes = requiredBytes(re)
		m.high = m.bytes != nil && m.bytes.highOnly()
	}
	m.class = newLineClass(re)
	for _, lit := range m.lits {
		m.rare = append(m.rare, rarestByte(lit))
		m.lens = append(m.lens, len(lit))
	}
	return m, nil
}

// foldedASCII returns the case-insensitive search re is, when it is an
// ASCII literal that folds case and no letter of it folds outside ASCII.
func foldedASCII(re *syntax.Regexp) (*asciiFold, bool) {
	if re.Op == syntax.OpCapture {
		return foldedASCII(re.Sub[0])
	}
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase == 0 {
		return nil, false
	}
	return newASCIIFold(re.Rune)
}

func isEmpty(b []byte) bool { return len(b) == 0 }

// exactLiterals returns the strings re matches, when it matches a few
// strings and nothing else: a literal (every spelling, when it folds
// case), a class of a few runes, an alternation, a concatenation or an
// optional one of those (err(or)?s?\.New is four strings). A literal
// holding U+FFFD is not exact: the expression also finds that rune in
// each invalid byte, a byte search does not.
func exactLiterals(re *syntax.Regexp) ([][]byte, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, utf8.RuneError) {
			return nil, false
		}
		if re.Flags&syntax.FoldCase == 0 {
			return [][]byte{[]byte(string(re.Rune))}, true
		}
		lits := foldedSpellings(re.Rune)
		return lits, lits != nil
	case syntax.OpCharClass:
		lits := requiredLiterals(re)
		return lits, lits != nil
	case syntax.OpCapture:
		return exactLiterals(re.Sub[0])
	case syntax.OpEmptyMatch:
		return [][]byte{{}}, true
	case syntax.OpQuest:
		l, ok := exactLiterals(re.Sub[0])
		if !ok || len(l) >= maxLiterals {
			return nil, false
		}
		return append([][]byte{{}}, l...), true
	case syntax.OpAlternate:
		var all [][]byte
		for _, sub := range re.Sub {
			l, ok := exactLiterals(sub)
			if !ok || len(all)+len(l) > maxLiterals {
				return nil, false
			}
			all = append(all, l...)
		}
		return all, true
	case syntax.OpConcat:
		all := [][]byte{{}}
		for _, sub := range re.Sub {
			l, ok := exactLiterals(sub)
			if !ok || len(all)*len(l) > maxLiterals {
				return nil, false
			}
			var next [][]byte
			for _, a := range all {
				for _, b := range l {
					next = append(next, append(slices.Clip(a), b...))
				}
			}
			all = next
		}
		return all, true
	}
	return nil, false
}

// maxLiterals bounds the literals a prefilter searches for: a search
// for many is no faster than the expression itself.
const maxLiterals = 16

// requiredLiterals returns literals one of which every match of re holds,
// or nil when it finds none worth searching for (or none a byte search
// finds as the expression does: U+FFFD, which matches invalid bytes). It looks through
// captures, concatenations (the child with the longest shortest
// literal), repetitions of at least one, alternations (every branch must
// have some) and case folding (each spelling, while they are few).
func requiredLiterals(re *syntax.Regexp) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, utf8.RuneError) {
			// The expression finds U+FFFD in each invalid byte too; a
			// byte search finds only its encoding.
			return nil
		}
		if re.Flags&syntax.FoldCase == 0 {
			return [][]byte{[]byte(string(re.Rune))}
		}
		return foldedWindow(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best [][]byte
		for i, sub := range re.Sub {
			l := requiredLiterals(sub)
			if joined := joinedLiterals(re.Sub[i:]); better(joined, l) {
				l = joined
			}
			if better(l, best) {
				best = l
			}
		}
		return best
	case syntax.OpCharClass:
		// [äöü] (the parser's form of ä|ö|ü): each rune, when few.
		var all [][]byte
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(all) == maxLiterals || r == utf8.RuneError {
					return nil
				}
				all = append(all, []byte(string(r)))
			}
		}
		return all
	case syntax.OpAlternate:
		var all [][]byte
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil || len(all)+len(l) > maxLiterals {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

// better reports whether literal set a is worth more than b to search
// for: a longer shortest literal, then fewer literals.
func better(a, b [][]byte) bool {
	if sa, sb := shortest(a), shortest(b); sa != sb {
		return sa > sb
	}
	return len(a) > 0 && len(a) < len(b)
}

// joinedLiterals returns the strings the start of subs spells, when its
// first elements are exact (literals, small classes): "v[0-9]+" spells
// v0 to v9, each a required literal longer than "v". The product stops
// before it holds more than maxLiterals strings, and at the first element
// that is not exact, taking one repetition of a repeat of at least one.
func joinedLiterals(subs []*syntax.Regexp) [][]byte {
	var out [][]byte
	for _, sub := range subs {
		last := false
		if (sub.Op == syntax.OpPlus || sub.Op == syntax.OpRepeat && sub.Min >= 1) && len(out) > 0 {
			sub, last = sub.Sub[0], true
		}
		var set [][]byte
		switch {
		case sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase != 0 && !slices.Contains(sub.Rune, utf8.RuneError):
			set = foldedSpellings(sub.Rune) // every spelling: no window
		case sub.Op == syntax.OpLiteral, sub.Op == syntax.OpCharClass:
			set = requiredLiterals(sub)
		}
		if set == nil || len(out) > 0 && len(out)*len(set) > maxLiterals {
			break
		}
		if out == nil {
			out = set
		} else {
			var next [][]byte
			for _, a := range out {
				for _, b := range set {
					next = append(next, append(append([]byte(nil), a...), b...))
				}
			}
			out = next
		}
		if last {
			break
		}
	}
	return out
}

// foldedWindow returns every spelling, under simple case folding, of the
// longest run of runes that has at most maxLiterals of them: ERROR has 32
// spellings, ERRO has 16.
func foldedWindow(runes []rune) [][]byte {
	for n := len(runes); n > 0; n-- {
		var best [][]byte
		for i := 0; i+n <= len(runes); i++ {
			if l := foldedSpellings(runes[i : i+n]); l != nil && better(l, best) {
				best = l
			}
		}
		if best != nil {
			return best
		}
	}
	return nil
}

func shortest(lits [][]byte) int {
	if len(lits) == 0 {
		return 0
	}
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}

// foldedSpellings returns every spelling of runes under simple case
// folding (RE2's (?i)), or nil when there are more than maxLiterals.
func foldedSpellings(runes []rune) [][]byte {
	out := []string{""}
	for _, r := range runes {
		orbit := []rune{r}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
		}
		if len(out)*len(orbit) > maxLiterals {
			return nil
		}
		var next []string
		for _, prefix := range out {
			for _, f := range orbit {
				next = append(next, prefix+string(f))
			}
		}
		out = next
	}
	lits := make([][]byte, len(out))
	for i, s := range out {
		lits[i] = []byte(s)
	}
	return lits
}

// textAnchorsToLine turns every \A and \z of re into ^ and $, in place.
func textAnchorsToLine(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
		re.Flags &^= syntax.WasDollar
	}
	for _, sub := range re.Sub {
		textAnchorsToLine(sub)
	}
}

// anchorToText returns a copy of re whose leading line anchor (^) and
// trailing one ($), at the top level, are text anchors, and whether it
// changed anything.
func anchorToText(re *syntax.Regexp) (*syntax.Regexp, bool) {
	if re.Op != syntax.OpConcat || len(re.Sub) == 0 {
		return re, false
	}
	out := *re
	out.Sub = slices.Clone(re.Sub)
	changed := false
	if first := out.Sub[0]; first.Op == syntax.OpBeginLine {
		out.Sub[0] = &syntax.Regexp{Op: syntax.OpBeginText, Flags: first.Flags}
		changed = true
	}
	if last := out.Sub[len(out.Sub)-1]; last.Op == syntax.OpEndLine {
		out.Sub[len(out.Sub)-1] = &syntax.Regexp{Op: syntax.OpEndText, Flags: last.Flags &^ syntax.WasDollar}
		changed = true
	}
	return &out, changed
}

// hasUpperLiteral reports whether a literal of re holds an upper-case
// letter (smart case looks at literals only: \W is not a capital).
func hasUpperLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if unicode.IsUpper(r) {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasUpperLiteral(sub) {
			return true
		}
	}
	return false
}

// withinLine makes re unable to match a newline: the newline leaves every
// class (\s, [[:space:]], [^a] where the parser kept it), any-char becomes
// any-char-but-newline, and a literal newline is refused.
func withinLine(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return server.Errorf(server.InvalidInput, "pattern holds a newline; matches are within one line")
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			re.Op = syntax.OpNoMatch
		}
	}
	for _, sub := range re.Sub {
		if err := withinLine(sub); err != nil {
			return err
		}
	}
	return nil
}

// withoutNewline removes '\n' from a class given as rune ranges.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo > '\n' || hi < '\n' {
			out = append(out, lo, hi)
			continue
		}
		if lo < '\n' {
			out = append(out, lo, '\n'-1)
		}
		if hi > '\n' {
			out = append(out, '\n'+1, hi)
		}
	}
	return out
}
