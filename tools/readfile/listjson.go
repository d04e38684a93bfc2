package readfile

import (
	"strconv"
	"unicode/utf8"
)

// MarshalJSON encodes a page exactly as encoding/json encodes the struct
// (the same bytes: field order, omitempty, escaping), without reflection:
// a page holds up to 10 000 entries and its encoding is most of the work
// of a listing. The tests check the two encodings agree.
func (o ListFilesOut) MarshalJSON() ([]byte, error) {
	size := 192 + len(o.Revision) + len(o.Path) + len(o.NextCursor)
	for _, e := range o.Entries {
		size += 64 + len(e.Path) + len(e.Type) + len(e.Mode) + len(e.Target)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"revision":`...)
	b = appendJSONString(b, o.Revision)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, o.Path)
	b = append(b, `,"entries":`...)
	if o.Entries == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range o.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = o.Entries[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(o.Total), 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, o.Truncated)
	if o.NextCursor != "" {
		b = append(b, `,"next_cursor":`...)
		b = appendJSONString(b, o.NextCursor)
	}
	b = append(b, `,"omitted":`...)
	b = strconv.AppendInt(b, int64(o.Omitted), 10)
	b = append(b, `,"invalid":`...)
	b = strconv.AppendInt(b, int64(o.Invalid), 10)
	return append(b, '}'), nil
}

func (e *FileEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"path":`...)
	b = appendJSONString(b, e.Path)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, e.Size, 10)
	b = append(b, `,"mode":`...)
	b = appendJSONString(b, e.Mode)
	if e.Target != "" {
		b = append(b, `,"target":`...)
		b = appendJSONString(b, e.Target)
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string the way encoding/json's
// Marshal writes it: HTML-sensitive characters, control characters, U+2028
// and U+2029 escaped, and each byte of invalid UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe(c) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonSafe reports whether an ASCII byte stands for itself in a JSON
// string as encoding/json writes it: printable ones and DEL, but the
// quote, the backslash and the HTML-sensitive <, > and &.
func jsonSafe(c byte) bool {
	return c >= ' ' && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}
