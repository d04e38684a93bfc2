package searchtext

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	"github.com/repo-mcp/repo-mcp/server"
)

// cursor is where a page starts: after line Line of Path (Line 0: after
// the whole file Path, for output files), or at the start of Path when At
// is set (a page the time budget cut ends before the first file it did
// not match), for the search whose arguments and commit hash to Key. Rest
// says a page of this search was cut: later pages match only the files
// from Path on, since earlier pages showed the ones before, and their
// totals count from there. It carries no secret: a forged cursor can only
// move the start of a page, and pages show only what the caller may read.
type cursor struct {
	Key  string `json:"k"`
	Path string `json:"p"`
	Line int    `json:"l,omitempty"`
	At   bool   `json:"a,omitempty"`
	Rest bool   `json:"r,omitempty"`
}

// searchKey binds a cursor to the commit and to every argument but the
// cursor itself and the page size, which may change from page to page.
func searchKey(revision string, in SearchTextIn) string {
	in.Cursor, in.Limit = "", 0
	args, _ := json.Marshal(in) // a struct of strings, ints and slices: cannot fail
	h := sha256.Sum256(append([]byte(revision+"\x00"), args...))
	return hex.EncodeToString(h[:12])
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor parses s and checks it belongs to the search keyed key.
func decodeCursor(s, key string) (cursor, error) {
	bad := server.Errorf(server.InvalidInput, "cursor is not one this search returned; start again without it")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, bad
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Key != key || c.Line < 0 {
		return cursor{}, bad
	}
	return c, nil
}

// after reports whether (path, line) comes after the cursor.
func (c cursor) after(path string, line int) bool {
	if c.At {
		return path >= c.Path
	}
	return path > c.Path || path == c.Path && line > c.Line
}

// fileAfter reports whether the whole file path comes after the cursor
// (output files).
func (c cursor) fileAfter(path string) bool {
	return path > c.Path || c.At && path == c.Path
}
