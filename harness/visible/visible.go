package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unsafe reports whether r would be interpreted rather than shown: a
// control character (C0, DEL, C1: terminal escapes start with ESC or CSI),
// a format character (bidirectional embeddings, overrides and isolates,
// the LRM, RLM and ALM marks, zero-width characters, the byte order mark,
// tag characters that hide text from a reader but not from a model), or a
// line or paragraph separator (U+2028, U+2029, which some readers take for
// a line end). Tab and newline are unsafe too; Text keeps them.
func Unsafe(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return r < 0x20 || r == 0x7f // C0 and DEL: ASCII's controls
	case r <= 0x9f:
		return true // C1
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Text returns s with every unsafe character but tab and newline made
// visible: an ASCII control as \xNN ("\x1b"), any other as <U+XXXX>
// ("<U+202E>"), and a byte that is not UTF-8 as \xNN. Text of safe
// characters is returned unchanged, and Text(Text(s)) == Text(s).
func Text(s string) string { return escape(s, true) }

// Line is Text without the exception: tabs and newlines are escaped too,
// so the result is one line.
func Line(s string) string { return escape(s, false) }

func escape(s string, keepLines bool) string {
	i := firstUnsafe(s, keepLines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafeHere(r, keepLines):
			b.WriteString(s[i : i+size])
		case r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte Text or Line changes, or -1.
func firstUnsafe(s string, keepLines bool) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // most text: no decoding, no call
			if c >= 0x20 && c != 0x7f || keepLines && (c == '\n' || c == '\t') {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeHere(r, keepLines) {
			return i
		}
		i += size
	}
	return -1
}

func unsafeHere(r rune, keepLines bool) bool {
	if keepLines && (r == '\n' || r == '\t') {
		return false
	}
	return Unsafe(r)
}

// JSON returns b, encoded JSON, with every unsafe character at or above
// DEL written as a \uXXXX escape (a surrogate pair above U+FFFF). The
// encoder already escapes the C0 controls inside strings, so the only
// unsafe bytes JSON leaves alone are the encoder's own line ends. The
// result decodes to the same value. b is returned as it is when it holds
// nothing to escape.
func JSON(b []byte) []byte {
	i := firstJSONUnsafe(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r < utf8.RuneSelf && r != 0x7f || !Unsafe(r) {
			out = append(out, b[i:i+size]...)
		} else if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}

func firstJSONUnsafe(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || r >= utf8.RuneSelf && Unsafe(r) {
			return i
		}
		i += size
	}
	return -1
}
