package textindex

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"

	"github.com/google/codesearch/index"
)

// A Plan is the trigram query a regular expression implies: every text
// the expression matches holds the trigrams the plan asks for, so blobs
// without them need not be looked at.
type Plan struct {
	q *index.Query
}

// NewPlan plans re, which must match within one line (no newline in any
// literal or class): trigrams spanning lines are not indexed.
func NewPlan(re *syntax.Regexp) Plan {
	if matchesInvalid(re) {
		return Plan{q: &index.Query{Op: index.QAll}}
	}
	return Plan{q: index.RegexpQuery(re)}
}

// matchesInvalid reports whether re may match U+FFFD, which Go's regexp
// also finds in each invalid byte: a blob holding one then matches with
// none of the trigrams of the rune's encoding.
func matchesInvalid(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, utf8.RuneError) {
			return true
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= utf8.RuneError && utf8.RuneError <= re.Rune[i+1] {
				return true
			}
		}
	}
	return slices.ContainsFunc(re.Sub, matchesInvalid)
}

// All reports that the plan selects every text blob: the expression has
// no trigram the index can use, and a search must scan.
func (p Plan) All() bool { return p.q.Op == index.QAll }

// None reports that the expression can match nothing.
func (p Plan) None() bool { return p.q.Op == index.QNone }

// String renders the plan: trigrams quoted, AND as space, OR as |.
func (p Plan) String() string { return p.q.String() }

// eval returns the ordinals of restrict (ascending) that may match q.
func (s *shard) eval(q *index.Query, restrict []uint32) []uint32 {
	switch q.Op {
	case index.QNone:
		return nil
	case index.QAll:
		return restrict
	case index.QAnd:
		out := restrict
		for _, t := range q.Trigram {
			if out = s.intersect(out, t); len(out) == 0 {
				return nil
			}
		}
		for _, sub := range q.Sub {
			if out = s.eval(sub, out); len(out) == 0 {
				return nil
			}
		}
		return out
	}
	// QOr.
	var out []uint32
	for _, t := range q.Trigram {
		out = union(out, s.intersect(restrict, t))
	}
	for _, sub := range q.Sub {
		out = union(out, s.eval(sub, restrict))
	}
	return out
}

// intersect returns the ordinals of list whose blobs hold trigram t.
func (s *shard) intersect(list []uint32, t string) []uint32 {
	if len(t) != 3 {
		return list
	}
	r := s.postings(trigram(t[0])<<16 | trigram(t[1])<<8 | trigram(t[2]))
	var out []uint32
	i := 0
	for i < len(list) && r.next() {
		for i < len(list) && int(list[i]) < r.cur {
			i++
		}
		if i < len(list) && int(list[i]) == r.cur {
			out = append(out, list[i])
			i++
		}
	}
	return out
}

func union(a, b []uint32) []uint32 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
