package readfile

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// A page of list_files holds up to 10 000 entries. encoding/json walks
// each by reflection into a buffer that grows by doubling, which took a
// tenth of a new process's first listing; the page instead encodes itself
// ([server.JSONAppender]) into one buffer sized for it. The output is
// byte for byte encoding/json's (TestListJSONMatchesMarshal).

// AppendJSON appends the page as encoding/json's Marshal encodes it.
func (o ListFilesOut) AppendJSON(b []byte) []byte {
	size := 192 + len(o.Revision) + len(o.Path) + len(o.NextCursor)
	for _, e := range o.Entries {
		size += entryJSONBytes + len(e.Path) + len(e.Type) + len(e.Mode) + len(e.Target)
	}
	b = slices.Grow(b, size)
	b = append(b, `{"revision":`...)
	b = appendJSONString(b, o.Revision)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, o.Path)
	b = append(b, `,"entries":`...)
	if o.Entries == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range o.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendJSON(b)
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
	return append(b, '}')
}

// entryJSONBytes is an entry's JSON besides its strings' contents: keys,
// quotes, punctuation and a size of up to 20 digits.
const entryJSONBytes = 80

func (e FileEntry) appendJSON(b []byte) []byte {
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

// appendJSONString appends s quoted as encoding/json quotes strings: HTML
// characters, control characters, U+2028 and U+2029 escaped, invalid UTF-8
// replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
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
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
