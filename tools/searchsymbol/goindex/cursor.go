package goindex

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
)

// A cursor is base64url of: version byte, the index id (16 bytes), the
// query fingerprint (8 bytes), the offset (uvarint), and a 4-byte checksum
// of the rest. It holds nothing secret (an offset into a result list any
// caller can page through), so a checksum is enough: it catches mangled or
// hand-made cursors, and the ids catch cursors of another revision or query.
const cursorVersion = 1

func (x *Index) encodeCursor(query [8]byte, offset int) string {
	b := []byte{cursorVersion}
	b = append(b, x.id[:]...)
	b = append(b, query[:]...)
	b = binary.AppendUvarint(b, uint64(offset))
	sum := cursorSum(b)
	b = append(b, sum[:]...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (x *Index) decodeCursor(s string, query [8]byte) (int, error) {
	if len(s) > 128 {
		return 0, invalidInput("cursor is malformed")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 1+16+8+1+4 || b[0] != cursorVersion {
		return 0, invalidInput("cursor is malformed")
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	if want := cursorSum(body); !bytes.Equal(sum, want[:]) {
		return 0, invalidInput("cursor is malformed")
	}
	if !bytes.Equal(body[1:17], x.id[:]) {
		return 0, invalidInput("cursor belongs to another revision or index; start again without it")
	}
	if !bytes.Equal(body[17:25], query[:]) {
		return 0, invalidInput("cursor belongs to another query; repeat the query that returned it")
	}
	off, n := binary.Uvarint(body[25:])
	if n <= 0 || 25+n != len(body) || off > 1<<31 {
		return 0, invalidInput("cursor is malformed")
	}
	return int(off), nil
}

func cursorSum(b []byte) [4]byte {
	h := sha256.Sum256(append([]byte("goindex cursor\x00"), b...))
	return [4]byte(h[:4])
}
