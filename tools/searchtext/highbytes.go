package searchtext

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// highOnly reports whether f passes at one byte of 0x80 or above and at
// no ASCII byte (\p{Han}, [α-ω]+, [^\x00-\x7f]): ASCII text, most of
// source code, can then be skipped a word at a time.
func (f *byteFilter) highOnly() bool {
	if f.run != 1 {
		return false
	}
	for b := range 0x80 {
		if f.set[b] {
			return false
		}
	}
	return true
}

// eachLineByHighBytes is eachLineByBytes for a filter that is highOnly:
// lines are numbered only where one is given to the expression.
func (m *matcher) eachLineByHighBytes(data []byte, fn func(line, start, end, col int) bool) {
	set := &m.bytes.set
	line, counted := 1, 0 // the number of the line that starts at counted
	for i := 0; i < len(data); {
		at := nextHigh(data, i)
		if at < 0 {
			return
		}
		if !set[data[at]] {
			i = at + 1
			continue
		}
		start := counted + bytes.LastIndexByte(data[counted:at], '\n') + 1
		line += bytes.Count(data[counted:start], newline)
		end := lineEnd(data, at)
		if loc := m.line.FindIndex(data[start:end]); loc != nil && !fn(line, start, end, loc[0]+1) {
			return
		}
		i, counted, line = end+1, end+1, line+1
	}
}

// nextHigh returns the index of the first byte of data from i that is
// 0x80 or above, or -1, looking at eight bytes at a time.
func nextHigh(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if w := binary.LittleEndian.Uint64(data[i:]) & 0x8080808080808080; w != 0 {
			return i + bits.TrailingZeros64(w)/8
		}
	}
	for ; i < len(data); i++ {
		if data[i] >= 0x80 {
			return i
		}
	}
	return -1
}
