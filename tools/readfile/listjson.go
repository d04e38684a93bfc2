package readfile

import (
	"slices"
	"strconv"

	"github.com/repo-mcp/repo-mcp/internal/jsonquote"
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
	b = jsonquote.Append(b, o.Revision)
	b = append(b, `,"path":`...)
	b = jsonquote.Append(b, o.Path)
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
		b = jsonquote.Append(b, o.NextCursor)
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
	b = jsonquote.Append(b, e.Path)
	b = append(b, `,"type":`...)
	b = jsonquote.Append(b, e.Type)
	if e.Size != nil {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, *e.Size, 10)
	}
	b = append(b, `,"mode":`...)
	b = jsonquote.Append(b, e.Mode)
	if e.Target != "" {
		b = append(b, `,"target":`...)
		b = jsonquote.Append(b, e.Target)
	}
	return append(b, '}')
}
