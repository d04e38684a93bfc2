package jsonquote

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Append appends s as json.Marshal encodes it: quoted, with control
// characters, quotes, backslashes, <, > and &, U+2028 and U+2029 escaped,
// and invalid UTF-8 replaced by U+FFFD.
func Append[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	b = AppendEscaped(b, s, true)
	return append(b, '"')
}

// AppendText is Append without escaping <, > and &, as a json.Encoder
// writes strings after SetEscapeHTML(false): source code is full of them,
// and each escaped one takes six bytes instead of one.
func AppendText[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	b = AppendEscaped(b, s, false)
	return append(b, '"')
}

// AppendEscaped appends s escaped as the inside of a JSON string literal,
// without the quotes; html escapes <, > and & as json.Marshal does.
//
// s is escaped a chunk at a time into the room b has beyond its length,
// each chunk as much of s as fits there at its worst (every byte six):
// a run that needs no escape is then written eight bytes at a time, word
// by word, with no bounds to check per run. Source code has an escape every
// ten bytes or so (tabs, newlines, quotes), so a copy call per run, as
// append makes, cost more than the runs themselves.
func AppendEscaped[S ~string | ~[]byte](b []byte, s S, html bool) []byte {
	for len(s) > 0 {
		n := min(len(s), (cap(b)-len(b)-wordSlack)/maxEscape)
		if n < minChunk && n < len(s) {
			// Too little room left: grow for the rest of s as text
			// usually expands, or at least for one chunk at its worst.
			b = slices.Grow(b, max(len(s)+len(s)/8, maxEscape*minChunk)+wordSlack)
			continue
		}
		n = chunkEnd(s, n)
		b = escapeInto(b, s[:n], html)
		s = s[n:]
	}
	return b
}

const (
	// maxEscape is the most bytes one byte of input becomes: \u00XX for a
	// control character, \ufffd for a byte of invalid UTF-8.
	maxEscape = 6
	// wordSlack is the room a word written past the end of the output
	// needs.
	wordSlack = 8
	// minChunk is the least input worth a chunk.
	minChunk = 32
)

// chunkEnd returns where a chunk of at most n bytes of s ends: at n, or
// before a character that n would cut (invalid UTF-8 is replaced
// character by character, so a chunk must not end inside one).
func chunkEnd[S ~string | ~[]byte](s S, n int) int {
	if n == len(s) {
		return n
	}
	for i := n; i > max(n-utf8.UTFMax, 0); i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n // no character starts near n: whatever s[n] is, it is cut either way
}

// escapeInto appends s escaped to b, which has room beyond its length for
// maxEscape*len(s)+wordSlack bytes.
func escapeInto[S ~string | ~[]byte](b []byte, s S, html bool) []byte {
	j := len(b)
	b = b[:cap(b)]
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			w := s[i : i+8] // of a known length: no bounds to check, one load
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			// The whole word is written; only the bytes before the first
			// that needs attention count, and the rest is written again.
			binary.LittleEndian.PutUint64(b[j:], x)
			// The bytes that may need escaping (a control character, a
			// quote, a backslash, a byte of a multi-byte character, and
			// with html <, > and &), exact up to the lowest.
			found := x | (x-ones*0x20)&^x | eq(x, '"') | eq(x, '\\')
			if html {
				found |= eq(x, '<') | eq(x, '>') | eq(x, '&')
			}
			if found &= highs; found == 0 {
				i, j = i+8, j+8
				continue
			}
			k := bits.TrailingZeros64(found) / 8
			i, j = i+k, j+k
		} else if c := s[i]; c < utf8.RuneSelf && !needsEscape(c, html) {
			b[j] = c
			i, j = i+1, j+1
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if e := shortEscape(c); e != 0 {
				b[j], b[j+1] = '\\', e
				j += 2
			} else {
				b[j], b[j+1], b[j+2], b[j+3], b[j+4], b[j+5] = '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf]
				j += 6
			}
			i++
			continue
		}
		r, n := decodeRune(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			j += copy(b[j:], `\ufffd`)
		case r == '\u2028' || r == '\u2029':
			j += copy(b[j:], `\u202`)
			b[j] = hex[r&0xf]
			j++
		default:
			for t := range n {
				b[j+t] = s[i+t]
			}
			j += n
		}
		i += n
	}
	return b[:j]
}

// needsEscape reports whether ASCII byte c is escaped.
func needsEscape(c byte, html bool) bool {
	return c < 0x20 || c == '"' || c == '\\' || html && (c == '<' || c == '>' || c == '&')
}

const hex = "0123456789abcdef"

// shortEscape returns the letter of the two-byte escape of an ASCII byte
// that needs escaping (n for a newline, a quote for a quote), or 0 when it
// takes six (\u00XX).
func shortEscape(c byte) byte {
	const controls = "\x00\x00\x00\x00\x00\x00\x00\x00btn\x00fr" // \b \t \n \f \r
	switch {
	case c == '"' || c == '\\':
		return c
	case int(c) < len(controls):
		return controls[c]
	}
	return 0
}

// decodeRune is utf8.DecodeRune for either form of text.
func decodeRune[S ~string | ~[]byte](s S) (rune, int) {
	var head [utf8.UTFMax]byte
	n := copy(head[:], s[:min(len(s), utf8.UTFMax)])
	return utf8.DecodeRune(head[:n])
}

// The classic tests for a zero byte and for a byte below n, applied to the
// eight bytes of a word at once. A byte that passes sets its high bit in the
// result; bytes after it may too (a borrow), so only the lowest set bit is
// exact, which is the one used.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func eq(x uint64, c byte) uint64 {
	t := x ^ (ones * uint64(c))
	return (t - ones) &^ t
}
