package searchtext

import (
	"math"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// byteFilter is what a line must hold for an expression with no literal
// to search for (\p{Han}, [^\x00-\x7f], [A-Z]{5,}) to match in it: a run
// of at least run consecutive bytes of set. Scanning a line for that costs
// a table look-up per byte, far less than Go's regexp engines do, which
// have no DFA; most lines of most files are ruled out without them.
type byteFilter struct {
	set [256]bool
	run int
}

// odds estimates the share of text positions where the filter passes, to
// choose between filters: bytes are taken as uniform.
func (f *byteFilter) odds() float64 {
	n := 0
	for _, in := range f.set {
		if in {
			n++
		}
	}
	return math.Pow(float64(n)/256, float64(f.run))
}

// maxRun bounds a filter's run: longer runs rule out little more.
const maxRun = 8

// requiredBytes returns a filter every match of re passes, or nil when it
// finds none that rules out much.
func requiredBytes(re *syntax.Regexp) *byteFilter {
	f := bytesOf(re)
	if f == nil || f.odds() > 0.5 {
		return nil
	}
	return f
}

func bytesOf(re *syntax.Regexp) *byteFilter {
	switch re.Op {
	case syntax.OpLiteral:
		f := &byteFilter{run: 1}
		r := re.Rune[0]
		addLead(&f.set, r, r)
		if re.Flags&syntax.FoldCase != 0 {
			for g := unicode.SimpleFold(r); g != r; g = unicode.SimpleFold(g) {
				addLead(&f.set, g, g)
			}
		}
		return f
	case syntax.OpCharClass:
		f := &byteFilter{run: 1}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			addLead(&f.set, re.Rune[i], re.Rune[i+1])
		}
		return f
	case syntax.OpCapture:
		return bytesOf(re.Sub[0])
	case syntax.OpPlus:
		return bytesOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil
		}
		f := bytesOf(re.Sub[0])
		if f != nil && f.run == 1 && asciiOnly(re.Sub[0]) {
			f.run = min(re.Min, maxRun)
		}
		return f
	case syntax.OpConcat:
		var best *byteFilter
		for _, sub := range re.Sub {
			if f := bytesOf(sub); f != nil && (best == nil || f.odds() < best.odds()) {
				best = f
			}
		}
		return best
	case syntax.OpAlternate:
		u := &byteFilter{run: 1}
		for _, sub := range re.Sub {
			f := bytesOf(sub)
			if f == nil {
				return nil
			}
			for b, in := range f.set {
				u.set[b] = u.set[b] || in
			}
		}
		return u
	}
	return nil
}

// asciiOnly reports whether re is a literal or class of ASCII runes only,
// so that each match of it is one byte.
func asciiOnly(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpCharClass:
		return len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < utf8.RuneSelf
	case syntax.OpLiteral:
		return len(re.Rune) == 1 && re.Rune[0] < utf8.RuneSelf && re.Flags&syntax.FoldCase == 0
	}
	return false
}

// addLead adds to set the first bytes of the UTF-8 encodings of the runes
// lo to hi. Go's regexp reads an invalid byte as U+FFFD: a range holding
// it can start at any byte from 0x80 up.
func addLead(set *[256]bool, lo, hi rune) {
	if lo < utf8.RuneSelf {
		for b := lo; b <= min(hi, utf8.RuneSelf-1); b++ {
			set[b] = true
		}
		lo = utf8.RuneSelf
	}
	if lo > hi {
		return
	}
	if lo <= utf8.RuneError && utf8.RuneError <= hi {
		for b := 0x80; b < 0x100; b++ {
			set[b] = true
		}
		return
	}
	var first, last [utf8.UTFMax]byte
	utf8.EncodeRune(first[:], lo)
	utf8.EncodeRune(last[:], min(hi, unicode.MaxRune))
	for b := int(first[0]); b <= int(last[0]); b++ {
		set[b] = true
	}
}

// eachLineByBytes is eachLine for an expression with a byte filter: lines
// that do not pass it are never given to the expression.
func (m *matcher) eachLineByBytes(data []byte, fn func(line, start, end, col int) bool) {
	f := m.bytes
	line, lineStart, run := 1, 0, 0 // the line holding data[i], where it starts, and the run so far
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\n' {
			run, line, lineStart = 0, line+1, i+1
			continue
		}
		if !f.set[c] {
			run = 0
			continue
		}
		if run++; run < f.run {
			continue
		}
		end := lineEnd(data, i)
		if loc := m.line.FindIndex(data[lineStart:end]); loc != nil {
			if !fn(line, lineStart, end, loc[0]+1) {
				return
			}
		}
		// Go on after the line.
		i, run = end, 0
		line, lineStart = line+1, end+1
	}
}
