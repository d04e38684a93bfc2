package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// StrValue reads a string, as Str does, and returns its value, as Unquote
// would, in one pass over its bytes. It is meant for a string that may be
// large and dense with escapes (a page of source code has one every few
// bytes), where reading it twice, to find its end and then to decode it,
// cost as much again, and where copying the short runs between escapes
// one by one cost more than finding them: a run is copied a word at a
// time as it is scanned. The first string of a scan that needs a buffer
// gets one sized for the rest of the data (a page is most of its frame);
// later ones grow theirs as they go, so that a frame of many short
// escaped strings cannot make each of them allocate the rest of the frame.
func (s *Scanner) StrValue() (string, bool) {
	data := s.data
	start := s.pos + 1
	i := nextSpecialOrHigh(data, start)
	if i == len(data) {
		return "", false
	}
	if data[i] == '"' {
		s.pos = i + 1
		return string(data[start:i]), true
	}
	size := 2*(i-start) + 16
	if !s.presized {
		s.presized = true
		size = len(data) - start + 8 // the value is no longer, but for invalid UTF-8
	}
	out := append(make([]byte, 0, size), data[start:i]...)
	for {
		switch c := data[i]; {
		case c == '"':
			s.pos = i + 1
			return exact(out), true
		case c == '\\':
			if escapeLen(data[i:]) == 0 {
				return "", false
			}
			out, i = appendUnescaped(out, data, i)
		case c < 0x20:
			return "", false
		default: // a byte of a multi-byte character
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, data[i:i+size]...)
			}
			i += size
		}
		if out, i = appendRun(out, data, i); i == len(data) {
			return "", false
		}
	}
}

// appendRun appends the bytes of data[i:] up to the first that is special
// or not ASCII, and returns the index of that byte, or len(data). It
// copies eight bytes at a time, the special one and those after it
// included, beyond out's length (within its capacity, which it makes
// room for), where the next append overwrites them.
func appendRun(out, data []byte, i int) ([]byte, int) {
	for ; i+8 <= len(data); i += 8 {
		if cap(out)-len(out) < 8 {
			out = append(out, make([]byte, 8)...)[:len(out)]
		}
		x := binary.LittleEndian.Uint64(data[i:])
		binary.LittleEndian.PutUint64(out[len(out):len(out)+8], x)
		if found := specialOrHigh(x); found != 0 {
			n := bits.TrailingZeros64(found) / 8
			return out[:len(out)+n], i + n
		}
		out = out[:len(out)+8]
	}
	for ; i < len(data) && !isSpecial(data[i]) && data[i] < utf8.RuneSelf; i++ {
		out = append(out, data[i])
	}
	return out, i
}

// exact returns out as a string, copied when its buffer is much larger
// than it, so that a short string does not keep a large buffer alive;
// otherwise the string is out's bytes, which nothing writes to again.
func exact(out []byte) string {
	if cap(out) > 2*len(out)+4096 {
		return string(out)
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// nextSpecialOrHigh returns the index of the first byte of data[i:] that is
// special (isSpecial) or not ASCII, or len(data).
func nextSpecialOrHigh(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if found := specialOrHigh(binary.LittleEndian.Uint64(data[i:])); found != 0 {
			return i + bits.TrailingZeros64(found)/8
		}
	}
	for i < len(data) && !isSpecial(data[i]) && data[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// specialOrHigh returns x, eight bytes read little-endian, with the high
// bit of each byte set that is special (isSpecial) or not ASCII, and the
// others clear, except that bytes above the lowest one flagged may be
// flagged wrongly (a borrow only carries upward): only the lowest one
// flagged is exact.
func specialOrHigh(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	return (x | ((x - ones*0x20) & ^x) | ((quote - ones) & ^quote) | ((backslash - ones) & ^backslash)) & highs
}
