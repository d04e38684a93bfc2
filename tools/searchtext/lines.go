package searchtext

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// eachLine calls fn for each line of data the matcher matches, in order,
// with its 1-based number, its bytes [start, end) (without the newline)
// and the 1-based byte column of the first match; fn returns false to
// stop. Lines are as grep sees them: a final newline ends the last line
// rather than starting an empty one.
func (m *matcher) eachLine(data []byte, fn func(line, start, end, col int) bool) {
	switch {
	case m.class != nil:
		m.eachLineOfClass(data, fn)
	case m.exact, m.lits != nil && !m.prefix:
		m.eachLineByLiterals(data, fn)
	case m.prefix:
		m.eachLineWhole(data, fn)
	case m.bytes != nil && m.high:
		m.eachLineByHighBytes(data, fn)
	case m.bytes != nil:
		m.eachLineByBytes(data, fn)
	default:
		m.eachLineByLine(data, fn)
	}
}

// eachLineWhole is eachLine for an expression that starts with a literal:
// Go's regexp then skips to candidates by itself, over the whole file.
func (m *matcher) eachLineWhole(data []byte, fn func(line, start, end, col int) bool) {
	pos, line := 0, 1 // line is the number of the line that starts at pos
	for pos < len(data) {
		loc := m.re.FindIndex(data[pos:])
		if loc == nil {
			return
		}
		at := pos + loc[0]
		if at == len(data) && data[at-1] == '\n' {
			return // an empty match after the final newline: no line there
		}
		start := pos
		if i := bytes.LastIndexByte(data[pos:at], '\n'); i >= 0 {
			start = pos + i + 1
			line += bytes.Count(data[pos:start], newline)
		}
		end := lineEnd(data, at)
		if !fn(line, start, end, at-start+1) {
			return
		}
		pos, line = end+1, line+1
	}
}

// eachLineByLiterals is eachLine for an expression every match of which
// holds one of the literals m.lits: it finds the next literal (a fast
// byte search per literal, each remembered until passed), then runs the
// expression on that line alone. A line is a whole text to the
// expression with the same meaning: ^, $ and \b see a newline or the
// text's edge alike. When the literals are the expression's every match,
// the line matches without it, at the literal found.
func (m *matcher) eachLineByLiterals(data []byte, fn func(line, start, end, col int) bool) {
	find := m.finder(data)
	pos, line := 0, 1
	for pos < len(data) {
		at := find.from(pos)
		if at < 0 {
			return
		}
		start := pos
		if j := bytes.LastIndexByte(data[pos:at], '\n'); j >= 0 {
			start = pos + j + 1
			line += bytes.Count(data[pos:start], newline)
		}
		end := lineEnd(data, at)
		switch {
		case m.exact:
			if at = m.firstExact(find, data, start, end, at); at >= 0 && !fn(line, start, end, at-start+1) {
				return
			}
		case m.line.Match(data[start:end]):
			if !fn(line, start, end, m.line.FindIndex(data[start:end])[0]+1) {
				return
			}
		}
		pos, line = end+1, line+1
	}
}

// eachLineByLine is eachLine for an expression with no literal to look
// for: each line is matched alone, where Go's regexp uses its fast
// engines for short inputs rather than its NFA over a whole file.
func (m *matcher) eachLineByLine(data []byte, fn func(line, start, end, col int) bool) {
	for start, line := 0, 1; start < len(data); line++ {
		end := lineEnd(data, start)
		if m.line.Match(data[start:end]) {
			if !fn(line, start, end, m.line.FindIndex(data[start:end])[0]+1) {
				return
			}
		}
		start = end + 1
	}
}

// lineEnd returns the end of the line holding byte at: its newline, or
// the end of data.
func lineEnd(data []byte, at int) int {
	if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(data)
}

var newline = []byte{'\n'}

// countLines returns the number of lines of data the matcher matches.
func (m *matcher) countLines(data []byte) int {
	if m.exact && m.class == nil {
		return m.countExact(data)
	}
	n := 0
	m.eachLine(data, func(int, int, int, int) bool { n++; return true })
	return n
}

// countExact is countLines for an exact matcher: the common search, plain
// strings, needs no line numbers to be counted.
func (m *matcher) countExact(data []byte) int {
	find := m.finder(data)
	edges := len(m.before)+len(m.after) > 0
	n := 0
	for pos := 0; pos < len(data); {
		at := find.from(pos)
		if at < 0 {
			break
		}
		end := lineEnd(data, at)
		if edges {
			start := pos
			if j := bytes.LastIndexByte(data[pos:at], '\n'); j >= 0 {
				start = pos + j + 1
			}
			at = m.firstExact(find, data, start, end, at)
		}
		if at >= 0 {
			n++
		}
		pos = end + 1
	}
	return n
}

// MaxLineBytes bounds the text shown of one line.
const MaxLineBytes = 300

// showLine returns the part of line to show: all of it when it fits in
// MaxLineBytes, otherwise a window that starts a little before byte col
// (1-based), marked with … where cut.
func showLine(line []byte, col int) (string, bool) {
	if len(line) <= MaxLineBytes {
		return escape(line), false
	}
	start := max(0, min(col-1-MaxLineBytes/4, len(line)-MaxLineBytes))
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(len(line), start+MaxLineBytes)
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(escape(line[start:end]))
	if end < len(line) {
		b.WriteString("…")
	}
	return b.String(), true
}

// escape renders bytes as text: valid UTF-8 as is, except control
// characters other than tab; those and invalid bytes as \xNN.
func escape(b []byte) string {
	clean := utf8.Valid(b)
	for i := 0; clean && i < len(b); i++ {
		clean = b[i] >= 0x20 && b[i] != 0x7f || b[i] == '\t'
	}
	if clean {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20 && r != '\t', r == 0x7f:
			fmt.Fprintf(&s, `\x%02x`, b[0])
			n = 1
		default:
			s.Write(b[:n])
		}
		b = b[n:]
	}
	return s.String()
}
