package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A Scanner reads one JSON text in a single pass. It accepts exactly what
// encoding/json accepts (json.Valid), and its typed readers store values the
// way json.Unmarshal would store them into a struct's fields: keys match
// field names case-insensitively (KeyIs), the last of duplicate keys wins,
// null leaves a string or bool unchanged, and invalid UTF-8 or lone
// surrogates become U+FFFD. A value of the wrong JSON type for its field is
// skipped and reported apart from syntax errors, as encoding/json reports an
// *UnmarshalTypeError after decoding the rest, rather than a *SyntaxError.
//
// encoding/json checks a whole text before decoding it and checks every
// json.RawMessage again while decoding; reading a frame, its result and
// each content block in turn cost about six passes over a large text. With a
// Scanner a text result is read once to find its end and once to unquote it.
type Scanner struct {
	data  []byte
	pos   int
	depth int
	// presized says StrValue has sized a buffer for the rest of data
	// once: it does so for one string only (see StrValue).
	presized bool
}

// NewScanner returns a Scanner at the start of data. It is a value, so a
// caller that keeps it in a local variable scans without allocating.
func NewScanner(data []byte) Scanner { return Scanner{data: data} }

// Pos is the offset of the next byte to read.
func (s *Scanner) Pos() int { return s.pos }

// maxDepth is encoding/json's limit on nesting: a deeper text is a syntax
// error there, so it is one here too.
const maxDepth = 10000

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.SkipSpace()
	return s.pos == len(s.data)
}

// SkipSpace moves past white space.
func (s *Scanner) SkipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.SkipSpace()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// Skip checks the syntax of the next value and moves past it.
func (s *Scanner) Skip() bool {
	switch c := s.Peek(); c {
	case '{':
		return s.Object(nil)
	case '[':
		return s.Array(nil)
	case '"':
		_, _, ok := s.Str()
		return ok
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	default:
		return s.number()
	}
}

// Raw skips the next value and returns its bytes, without surrounding white
// space, as json.RawMessage would hold them.
func (s *Scanner) Raw() ([]byte, bool) {
	s.SkipSpace()
	start := s.pos
	ok := s.Skip()
	return s.data[start:s.pos], ok
}

// Object reads an object; the next byte is '{'. For each member it reads the
// key (unquoted when it has escapes) and the colon and calls member, which
// must read the value; a nil member skips every value.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	if !s.enter() {
		return false
	}
	if s.Peek() == '}' {
		return s.leave()
	}
	for {
		if s.Peek() != '"' {
			return false
		}
		key, escaped, ok := s.Str()
		if !ok || s.Peek() != ':' {
			return false
		}
		s.pos++
		switch {
		case member == nil:
			ok = s.Skip()
		case escaped:
			ok = member([]byte(Unquote(key, true)))
		default:
			ok = member(key)
		}
		if !ok {
			return false
		}
		switch s.Peek() {
		case ',':
			s.pos++
		case '}':
			return s.leave()
		default:
			return false
		}
	}
}

// Array reads an array; the next byte is '['. element must read one value; a
// nil element skips every value.
func (s *Scanner) Array(element func() bool) bool {
	if !s.enter() {
		return false
	}
	if s.Peek() == ']' {
		return s.leave()
	}
	for {
		var ok bool
		if element == nil {
			ok = s.Skip()
		} else {
			ok = element()
		}
		if !ok {
			return false
		}
		switch s.Peek() {
		case ',':
			s.pos++
		case ']':
			return s.leave()
		default:
			return false
		}
	}
}

// enter consumes the '{' or '[' that opens a nested value.
func (s *Scanner) enter() bool {
	s.pos++
	s.depth++
	return s.depth <= maxDepth
}

// leave consumes the '}' or ']' that closes a nested value.
func (s *Scanner) leave() bool {
	s.pos++
	s.depth--
	return true
}

// Literal reads lit (true, false or null) and reports whether it was next.
func (s *Scanner) Literal(lit string) bool {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
		return false
	}
	s.pos += len(lit)
	return true
}

// number checks the syntax of a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) number() bool {
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case !s.digits():
		return false
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if !s.digits() {
			return false
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		return s.digits()
	}
	return true
}

// digits reads one or more decimal digits.
func (s *Scanner) digits() bool {
	start := s.pos
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos > start
}

// Str reads a string; the next byte is '"'. It returns the bytes between the
// quotes and whether they hold an escape.
func (s *Scanner) Str() (raw []byte, escaped, ok bool) {
	data := s.data
	start := s.pos + 1
	for i := start; ; {
		i = nextSpecial(data, i)
		if i == len(data) {
			return nil, false, false
		}
		switch data[i] {
		case '"':
			s.pos = i + 1
			return data[start:i], escaped, true
		case '\\':
			n := escapeLen(data[i:])
			if n == 0 {
				return nil, false, false
			}
			escaped = true
			i += n
		default: // a control character
			return nil, false, false
		}
	}
}

// isSpecial reports whether c ends a run of plain bytes in a string: a quote,
// a backslash, or a control character, which JSON does not allow unescaped.
func isSpecial(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

// nextSpecial returns the index of the first special byte in data[i:], or
// len(data).
func nextSpecial(data []byte, i int) int {
	// Eight bytes at a time: the classic tests for a zero byte and for a byte
	// below n, applied bytewise. Their lowest bit is exact: it marks the first
	// byte that passes.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		quote := x ^ (ones * '"')
		backslash := x ^ (ones * '\\')
		found := ((x - ones*0x20) & ^x) | ((quote - ones) & ^quote) | ((backslash - ones) & ^backslash)
		if found &= highs; found != 0 {
			return i + bits.TrailingZeros64(found)/8
		}
	}
	for i < len(data) && !isSpecial(data[i]) {
		i++
	}
	return i
}

// nextBackslash returns the index of the first backslash in data[i:], or
// len(data). Escapes in a text are a few bytes apart: testing eight bytes at
// a time inline beats bytes.IndexByte's call.
func nextBackslash(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:]) ^ (ones * '\\')
		if found := (x - ones) & ^x & highs; found != 0 {
			return i + bits.TrailingZeros64(found)/8
		}
	}
	for i < len(data) && data[i] != '\\' {
		i++
	}
	return i
}

// escapeLen returns the length of the escape sequence that s starts with
// (s[0] is a backslash), or 0 when it is not a valid JSON escape.
func escapeLen(s []byte) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) >= 6 && hex4(s[2:6]) >= 0 {
			return 6
		}
	}
	return 0
}

// hex4 decodes four hexadecimal digits, or returns -1.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Unquote decodes the bytes of a string that Str accepted, as encoding/json
// does: escapes are decoded, and invalid UTF-8 and unpaired surrogates become
// U+FFFD.
func Unquote(raw []byte, escaped bool) string {
	valid := utf8.Valid(raw)
	if !escaped && valid {
		return string(raw)
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); {
		// The next backslash, or (in invalid UTF-8) byte that may need replacing.
		j := i
		if valid {
			j = nextBackslash(raw, i)
		} else {
			for j < len(raw) && raw[j] != '\\' && raw[j] < utf8.RuneSelf {
				j++
			}
		}
		b.Write(raw[i:j])
		switch i = j; {
		case i == len(raw):
		case raw[i] == '\\':
			i = unescape(&b, raw, i)
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(raw[i : i+size])
			}
			i += size
		}
	}
	return b.String()
}

// unescape writes the character escaped at raw[i] and returns the index after
// the escape (see appendUnescaped).
func unescape(b *strings.Builder, raw []byte, i int) int {
	var buf [utf8.UTFMax]byte
	out, next := appendUnescaped(buf[:0], raw, i)
	b.Write(out)
	return next
}

// appendUnescaped appends the character escaped at raw[i] and returns the
// index after the escape. A \u escape of a high surrogate followed by one
// of a low surrogate is one character; any other surrogate is U+FFFD.
func appendUnescaped(out, raw []byte, i int) ([]byte, int) {
	switch c := raw[i+1]; c {
	case 'b':
		out = append(out, '\b')
	case 'f':
		out = append(out, '\f')
	case 'n':
		out = append(out, '\n')
	case 'r':
		out = append(out, '\r')
	case 't':
		out = append(out, '\t')
	case 'u':
		r := hex4(raw[i+2:])
		i += 6
		if utf16.IsSurrogate(r) {
			if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' && hex4(raw[i+2:]) >= 0 {
				if pair := utf16.DecodeRune(r, hex4(raw[i+2:])); pair != unicode.ReplacementChar {
					out = utf8.AppendRune(out, pair)
					return out, i + 6
				}
			}
			r = unicode.ReplacementChar
		}
		out = utf8.AppendRune(out, r)
		return out, i
	default: // '"', '\\', '/'
		out = append(out, c)
	}
	return out, i + 2
}

// KeyIs reports whether an object key selects the struct field whose JSON
// name is name: encoding/json matches keys case-insensitively (bytes.EqualFold).
func KeyIs(key []byte, name string) bool {
	return string(key) == name || bytes.EqualFold(key, []byte(name))
}

// StringField reads a value for a string field: a string is stored, null
// leaves the field unchanged, and any other value is a type mismatch.
func (s *Scanner) StringField(field *string, mismatch *bool) bool {
	switch s.Peek() {
	case '"':
		raw, escaped, ok := s.Str()
		if ok {
			*field = Unquote(raw, escaped)
		}
		return ok
	case 'n':
		return s.Literal("null")
	}
	*mismatch = true
	return s.Skip()
}

// BoolField reads a value for a bool field, as StringField does.
func (s *Scanner) BoolField(field *bool, mismatch *bool) bool {
	switch s.Peek() {
	case 't':
		*field = true
		return s.Literal("true")
	case 'f':
		*field = false
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	}
	*mismatch = true
	return s.Skip()
}

// Span returns the bytes read since offset from (an earlier Pos).
func (s *Scanner) Span(from int) []byte { return s.data[from:s.pos] }
