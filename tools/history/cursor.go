package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"

	"github.com/repo-mcp/repo-mcp/server"
)

// cursor is what next_cursor carries: the commits a result was computed
// from, a digest of the arguments that chose it, and where the next page
// starts. It holds nothing the caller could not ask for anyway, so a
// checksum (not a secret) is enough: it catches mangled and hand-made
// cursors; the commits and the digest catch cursors of another question.
type cursor struct {
	Tool    string `json:"t"`
	Commits string `json:"c"` // the resolved commits, "base..head" or the start
	Args    string `json:"a"` // argsDigest of the arguments
	Pos     int    `json:"p"` // commits skipped (history), or files (diff)
	Offset  int    `json:"o,omitempty"`
}

const maxCursor = 1024

func (c cursor) encode() string {
	body, _ := json.Marshal(c)
	sum := cursorSum(body)
	return base64.RawURLEncoding.EncodeToString(append(body, sum[:]...))
}

// decodeCursor checks a cursor against the tool and the arguments of the
// call that carries it.
func decodeCursor(s, tool, args string) (cursor, error) {
	malformed := server.Errorf(server.InvalidInput, "cursor is not one this tool returned").
		WithHint("pass next_cursor exactly as received, or omit cursor to start again")
	if len(s) > maxCursor {
		return cursor{}, malformed
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 4 {
		return cursor{}, malformed
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	want := cursorSum(body)
	var c cursor
	if !bytes.Equal(sum, want[:]) || json.Unmarshal(body, &c) != nil || c.Tool != tool || c.Pos < 0 || c.Offset < 0 {
		return cursor{}, malformed
	}
	if c.Args != args {
		return cursor{}, server.Errorf(server.InvalidInput, "cursor belongs to a call with other arguments").
			WithHint("repeat the arguments of the call that returned it, or omit cursor to start again")
	}
	return c, nil
}

func cursorSum(b []byte) [4]byte {
	h := sha256.Sum256(append([]byte("history cursor\x00"), b...))
	return [4]byte(h[:4])
}

// argsDigest is a short digest of the arguments that decide what a paged
// result holds (everything but the cursor and the page size).
func argsDigest(v any) string {
	b, _ := json.Marshal(v)
	h := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(h[:12])
}
