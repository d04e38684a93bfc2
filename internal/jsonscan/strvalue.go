package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// StrValue reads a string, as Str does, and returns its value, as Unquote
// would, in one pass over its bytes. It is meant for a string that may be
// large and dense with escapes (a page of source code has one every few
// bytes), where reading it twice, to find its end and then to decode it,
// cost as much again. The first string of a scan that needs a buffer gets
// one sized for the rest of the data (a page is most of its frame); later
// ones grow theirs as they go, so that a frame of many short escaped
// strings cannot make each of them allocate the rest of the frame.
func (s *Scanner) StrValue() (string, bool) {
	data := s.data
	start := s.pos + 1
	var b strings.Builder
	run := start // where the bytes not yet written to b begin
	for i := start; ; {
		i = nextSpecialOrHigh(data, i)
		if i == len(data) {
			return "", false
		}
		switch c := data[i]; {
		case c == '"':
			s.pos = i + 1
			if b.Cap() == 0 {
				return string(data[start:i]), true
			}
			b.Write(data[run:i])
			return exact(&b), true
		case c == '\\':
			if escapeLen(data[i:]) == 0 {
				return "", false
			}
			s.grow(&b, len(data)-start)
			b.Write(data[run:i])
			i = unescape(&b, data, i)
			run = i
		case c < 0x20:
			return "", false
		default: // a byte of a multi-byte character
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				s.grow(&b, len(data)-start)
				b.Write(data[run:i])
				b.WriteRune(utf8.RuneError)
				run = i + 1
			}
			i += size
		}
	}
}

// grow sizes b, on its first write, for n bytes, if no string of this
// scan was sized so before.
func (s *Scanner) grow(b *strings.Builder, n int) {
	if b.Cap() == 0 && !s.presized {
		s.presized = true
		b.Grow(n)
	}
}

// exact returns b's string, copied when its buffer is much larger than the
// string, so that a short string does not keep a large buffer alive.
func exact(b *strings.Builder) string {
	if b.Cap() > 2*b.Len()+4096 {
		return strings.Clone(b.String())
	}
	return b.String()
}

// nextSpecialOrHigh returns the index of the first byte of data[i:] that is
// special (isSpecial) or not ASCII, or len(data).
func nextSpecialOrHigh(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		quote := x ^ (ones * '"')
		backslash := x ^ (ones * '\\')
		found := x | ((x - ones*0x20) & ^x) | ((quote - ones) & ^quote) | ((backslash - ones) & ^backslash)
		if found &= highs; found != 0 {
			return i + bits.TrailingZeros64(found)/8
		}
	}
	for i < len(data) && !isSpecial(data[i]) && data[i] < utf8.RuneSelf {
		i++
	}
	return i
}
