package searchtext

import (
	"regexp/syntax"
	"slices"
)

// lineClass is what an expression that spans whole lines of one ASCII
// class asks (^$, ^\s*$, ^[ \t]+$): at least min bytes, each in set. A
// line is ruled out at its first byte outside the set, and most lines
// are at their first or second byte: far less work than running the
// expression on every line.
type lineClass struct {
	set [256]bool
	min int
}

// newLineClass returns the lineClass re is, when it is ^ and $ around
// nothing or around a repetition of an ASCII class or literal byte with
// no upper bound.
func newLineClass(re *syntax.Regexp) *lineClass {
	before, after, middle := splitEdges(re)
	c := &lineClass{}
	if middle == nil { // ^$: splitEdges took both as leading edges
		if !slices.Equal(before, []edge{edge(syntax.OpBeginLine), edge(syntax.OpEndLine)}) {
			return nil
		}
		return c
	}
	if !slices.Equal(before, []edge{edge(syntax.OpBeginLine)}) || !slices.Equal(after, []edge{edge(syntax.OpEndLine)}) {
		return nil
	}
	switch middle.Op {
	case syntax.OpStar:
	case syntax.OpPlus:
		c.min = 1
	case syntax.OpRepeat:
		if middle.Max != -1 {
			return nil
		}
		c.min = middle.Min
	default:
		return nil
	}
	sub := middle.Sub[0]
	if !asciiOnly(sub) {
		return nil
	}
	if sub.Op == syntax.OpLiteral {
		c.set[sub.Rune[0]] = true
		return c
	}
	for i := 0; i+1 < len(sub.Rune); i += 2 {
		for r := sub.Rune[i]; r <= sub.Rune[i+1]; r++ {
			c.set[r] = r != '\n'
		}
	}
	return c
}

// eachLineOfClass is eachLine for a lineClass: a matching line matches
// from its start.
func (m *matcher) eachLineOfClass(data []byte, fn func(line, start, end, col int) bool) {
	set, least := &m.class.set, m.class.min
	for start, line := 0, 1; start < len(data); line++ {
		i := start
		for i < len(data) && set[data[i]] {
			i++
		}
		if i == len(data) || data[i] == '\n' {
			if i-start >= least && !fn(line, start, i, 1) {
				return
			}
			start = i + 1
			continue
		}
		start = lineEnd(data, i) + 1
	}
}
