package jsonquote

import (
	"math/bits"
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
func AppendEscaped[S ~string | ~[]byte](b []byte, s S, html bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		i = nextAttention(s, i, html)
		if i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := decodeRune(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			default:
				i += n
				continue
			}
			i += n
			start = i
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&')) {
			i++ // an HTML character in text mode
			continue
		}
		b = append(b, s[start:i]...)
		b = appendEscape(b, c)
		i++
		start = i
	}
	return append(b, s[start:]...)
}

const hex = "0123456789abcdef"

// appendEscape appends the escape of an ASCII byte that needs one.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
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

// nextAttention returns the index of the first byte of s[i:] that may need
// escaping (a control character, a quote, a backslash, a byte of a
// multi-byte character, and with html <, > and &), or len(s).
func nextAttention[S ~string | ~[]byte](s S, i int, html bool) int {
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		found := x | (x-ones*0x20)&^x | eq(x, '"') | eq(x, '\\')
		if html {
			found |= eq(x, '<') | eq(x, '>') | eq(x, '&')
		}
		if found &= highs; found != 0 {
			return i + bits.TrailingZeros64(found)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || html && (c == '<' || c == '>' || c == '&') {
			return i
		}
	}
	return i
}
