package searchtext

import (
	"bytes"
	"regexp/syntax"
)

// An edge is a zero-width condition at one end of a literal: ^, $, \b or
// \B. A pattern that is exact literals between edges (whole_word's \bnil\b,
// ^import, }$, (Reader|Writer)\b) is matched by finding the literals and
// looking at the bytes around them, with no expression run.
type edge syntax.Op

// splitEdges returns the edges before and after the middle of re, and the
// middle, when re is a concatenation with zero-width conditions at its
// ends. Nested concatenations and captures are flattened: groups are
// never reported.
func splitEdges(re *syntax.Regexp) (before, after []edge, middle *syntax.Regexp) {
	items := flatConcat(re, nil)
	for len(items) > 0 && isEdge(items[0]) {
		before, items = append(before, edge(items[0].Op)), items[1:]
	}
	for len(items) > 0 && isEdge(items[len(items)-1]) {
		after, items = append(after, edge(items[len(items)-1].Op)), items[:len(items)-1]
	}
	switch len(items) {
	case 0:
		return before, after, nil
	case 1:
		return before, after, items[0]
	}
	return before, after, &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: items}
}

func flatConcat(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch {
	case re.Op == syntax.OpConcat:
		for _, sub := range re.Sub {
			out = flatConcat(sub, out)
		}
		return out
	case re.Op == syntax.OpCapture && re.Sub[0].Op == syntax.OpConcat:
		return flatConcat(re.Sub[0], out)
	}
	return append(out, re)
}

// isEdge reports whether re is a condition an edge stands for. \A and \z
// are not: in a whole file they are its ends, not a line's.
func isEdge(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return false
}

// holds reports whether e holds at position at of the line
// data[start:end].
func (e edge) holds(data []byte, start, end, at int) bool {
	switch syntax.Op(e) {
	case syntax.OpBeginLine:
		return at == start
	case syntax.OpEndLine:
		return at == end
	case syntax.OpWordBoundary:
		return wordAt(data, start, end, at-1) != wordAt(data, start, end, at)
	case syntax.OpNoWordBoundary:
		return wordAt(data, start, end, at-1) == wordAt(data, start, end, at)
	}
	return false
}

// wordAt reports whether data[i], within [start, end), is a word byte as
// \b sees it: an ASCII letter, digit or underscore (every byte of a
// multi-byte or invalid sequence is part of a rune that is not).
func wordAt(data []byte, start, end, i int) bool {
	if i < start || i >= end {
		return false
	}
	c := data[i]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// matchAt returns whether one of the matcher's exact literals starts at
// data[at] with its edges holding; the line holding at is [start, end).
func (m *matcher) matchAt(data []byte, start, end, at int) bool {
	if f := m.fold; f != nil {
		to := at + len(f.lower)
		return to <= len(data) && f.equal(data[at:to]) && m.edgesHold(data, start, end, at, to)
	}
	for _, lit := range m.lits {
		if bytes.HasPrefix(data[at:], lit) && m.edgesHold(data, start, end, at, at+len(lit)) {
			return true
		}
	}
	return false
}

func (m *matcher) edgesHold(data []byte, start, end, from, to int) bool {
	for _, e := range m.before {
		if !e.holds(data, start, end, from) {
			return false
		}
	}
	for _, e := range m.after {
		if !e.holds(data, start, end, to) {
			return false
		}
	}
	return true
}

// firstExact returns the first place, from at (where a literal starts) to
// the end of the line [start, end), where an exact matcher's literals
// match with their edges; -1 when there is none. Under ^ or $ a literal
// can match at one place per line only: only that place is looked at.
func (m *matcher) firstExact(find *finder, data []byte, start, end, at int) int {
	switch {
	case len(m.before)+len(m.after) == 0:
		return at
	case m.lineStart:
		if at == start && m.matchAt(data, start, end, at) {
			return at
		}
		return -1
	case m.lineEnd:
		return m.firstEndingAt(data, start, end, at)
	}
	for !m.matchAt(data, start, end, at) {
		if at = find.from(at + 1); at < 0 || at >= end {
			return -1
		}
	}
	return at
}

// firstEndingAt returns the first place from at where a literal that
// ends the line [start, end) starts, with its edges holding, or -1.
func (m *matcher) firstEndingAt(data []byte, start, end, at int) int {
	first := -1
	for _, n := range m.litLens() {
		if p := end - n; p >= at && (first < 0 || p < first) && m.matchAt(data, start, end, p) {
			first = p
		}
	}
	return first
}

// litLens returns the lengths of the matcher's literals.
func (m *matcher) litLens() []int {
	if m.fold != nil {
		return []int{len(m.fold.lower)}
	}
	return m.lens
}
