package client

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A decoder reads one JSON text in a single pass. It accepts exactly what
// encoding/json accepts (json.Valid), and its typed readers store values the
// way json.Unmarshal would store them into the client's structs: keys match
// field names case-insensitively, the last of duplicate keys wins, null
// leaves a string or bool unchanged, and invalid UTF-8 or lone surrogates
// become U+FFFD. A value of the wrong JSON type for its field is skipped and
// reported apart from syntax errors, as encoding/json reports an
// *UnmarshalTypeError after decoding the rest, rather than a *SyntaxError.
//
// encoding/json checks a whole text before decoding it and checks every
// json.RawMessage again while decoding; reading the frame, the result and
// each content block in turn cost about six passes over a large text. Here a
// text result is read once to find its end and once to unquote it.
type decoder struct {
	data  []byte
	pos   int
	depth int
}

// maxDepth is encoding/json's limit on nesting: a deeper text is a syntax
// error there, so it is one here too.
const maxDepth = 10000

// end reports whether only white space is left.
func (d *decoder) end() bool {
	d.skipSpace()
	return d.pos == len(d.data)
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (d *decoder) peek() byte {
	d.skipSpace()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// skip checks the syntax of the next value and moves past it.
func (d *decoder) skip() bool {
	switch c := d.peek(); c {
	case '{':
		return d.object(nil)
	case '[':
		return d.array(nil)
	case '"':
		_, _, ok := d.str()
		return ok
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		return d.number()
	}
}

// raw skips the next value and returns its bytes, without surrounding white
// space, as json.RawMessage would hold them.
func (d *decoder) raw() ([]byte, bool) {
	d.skipSpace()
	start := d.pos
	ok := d.skip()
	return d.data[start:d.pos], ok
}

// object reads an object; the next byte is '{'. For each member it reads the
// key (unquoted when it has escapes) and the colon and calls member, which
// must read the value; a nil member skips every value.
func (d *decoder) object(member func(key []byte) bool) bool {
	if !d.enter() {
		return false
	}
	if d.peek() == '}' {
		return d.leave()
	}
	for {
		if d.peek() != '"' {
			return false
		}
		key, escaped, ok := d.str()
		if !ok || d.peek() != ':' {
			return false
		}
		d.pos++
		switch {
		case member == nil:
			ok = d.skip()
		case escaped:
			ok = member([]byte(unquote(key, true)))
		default:
			ok = member(key)
		}
		if !ok {
			return false
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			return d.leave()
		default:
			return false
		}
	}
}

// array reads an array; the next byte is '['. element must read one value; a
// nil element skips every value.
func (d *decoder) array(element func() bool) bool {
	if !d.enter() {
		return false
	}
	if d.peek() == ']' {
		return d.leave()
	}
	for {
		var ok bool
		if element == nil {
			ok = d.skip()
		} else {
			ok = element()
		}
		if !ok {
			return false
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			return d.leave()
		default:
			return false
		}
	}
}

// enter consumes the '{' or '[' that opens a nested value.
func (d *decoder) enter() bool {
	d.pos++
	d.depth++
	return d.depth <= maxDepth
}

// leave consumes the '}' or ']' that closes a nested value.
func (d *decoder) leave() bool {
	d.pos++
	d.depth--
	return true
}

func (d *decoder) literal(lit string) bool {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(lit)) {
		return false
	}
	d.pos += len(lit)
	return true
}

// number checks the syntax of a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() bool {
	if d.pos < len(d.data) && d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case !d.digits():
		return false
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if !d.digits() {
			return false
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		return d.digits()
	}
	return true
}

// digits reads one or more decimal digits.
func (d *decoder) digits() bool {
	start := d.pos
	for d.pos < len(d.data) && '0' <= d.data[d.pos] && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > start
}

// str reads a string; the next byte is '"'. It returns the bytes between the
// quotes and whether they hold an escape.
func (d *decoder) str() (raw []byte, escaped, ok bool) {
	data := d.data
	start := d.pos + 1
	for i := start; ; {
		i = nextSpecial(data, i)
		if i == len(data) {
			return nil, false, false
		}
		switch data[i] {
		case '"':
			d.pos = i + 1
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

// unquote decodes the bytes of a string that str accepted, as encoding/json
// does: escapes are decoded, and invalid UTF-8 and unpaired surrogates become
// U+FFFD.
func unquote(raw []byte, escaped bool) string {
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
// the escape. A \u escape of a high surrogate followed by one of a low
// surrogate is one character; any other surrogate is U+FFFD.
func unescape(b *strings.Builder, raw []byte, i int) int {
	switch c := raw[i+1]; c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r := hex4(raw[i+2:])
		i += 6
		if utf16.IsSurrogate(r) {
			if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' && hex4(raw[i+2:]) >= 0 {
				if pair := utf16.DecodeRune(r, hex4(raw[i+2:])); pair != unicode.ReplacementChar {
					b.WriteRune(pair)
					return i + 6
				}
			}
			r = unicode.ReplacementChar
		}
		b.WriteRune(r)
		return i
	default: // '"', '\\', '/'
		b.WriteByte(c)
	}
	return i + 2
}

// keyIs reports whether an object key selects the struct field whose JSON
// name is name: encoding/json matches keys case-insensitively (bytes.EqualFold).
func keyIs(key []byte, name string) bool {
	return string(key) == name || bytes.EqualFold(key, []byte(name))
}

// stringField reads a value for a string field: a string is stored, null
// leaves the field unchanged, and any other value is a type mismatch.
func (d *decoder) stringField(field *string, mismatch *bool) bool {
	switch d.peek() {
	case '"':
		raw, escaped, ok := d.str()
		if ok {
			*field = unquote(raw, escaped)
		}
		return ok
	case 'n':
		return d.literal("null")
	}
	*mismatch = true
	return d.skip()
}

// boolField reads a value for a bool field, as stringField does.
func (d *decoder) boolField(field *bool, mismatch *bool) bool {
	switch d.peek() {
	case 't':
		*field = true
		return d.literal("true")
	case 'f':
		*field = false
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	*mismatch = true
	return d.skip()
}
