package searchtext

import (
	"regexp"
	"regexp/syntax"
	"unicode"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
)

// MaxPatternBytes bounds a pattern (the schema says so too).
const MaxPatternBytes = 1000

// matcher is a compiled pattern: the expression that finds matches and
// the index plan that finds candidates.
type matcher struct {
	re   *regexp.Regexp
	plan textindex.Plan
	// lit is a byte string every match holds, when the expression has
	// one: lines without it are never given to the expression.
	lit []byte
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
	return &matcher{re: compiled, plan: textindex.NewPlan(re), lit: requiredLiteral(re)}, nil
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of re holds, or nil. It looks through captures, concatenations
// and repetitions of at least one; alternations and optional parts
// require nothing.
func requiredLiteral(re *syntax.Regexp) []byte {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []byte(string(re.Rune))
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []byte
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return nil
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
