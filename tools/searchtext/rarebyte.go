package searchtext

import (
	"bytes"
	"strings"
)

// byteOrder lists the printable ASCII bytes, tab and newline, commonest
// first, as counted in the .go files of Go's standard library (testdata
// left out). Bytes not listed (control bytes, non-ASCII) are rarer than
// all of them. A literal is searched for by its rarest byte: the fast
// byte search (vector instructions) then stops seldom, where searching
// for a common first byte stops every few dozen bytes.
const byteOrder = " e\tt0rn\naisox,lcfud.p1/():mg\"2=hbS_4{}Ty3EAv6\\RI8COPDk5MF9wNLX7BV[]U*G-H!W&+z<%Y;|K'q>jQ`ZJ#^$?@~"

// byteRank returns how common b is: higher is rarer.
func byteRank(b byte) int {
	if i := strings.IndexByte(byteOrder, b); i >= 0 {
		return i
	}
	return len(byteOrder)
}

// rarestByte returns the offset in lit of its rarest byte (the first of
// equals).
func rarestByte(lit []byte) int {
	best := 0
	for i, c := range lit {
		if byteRank(c) > byteRank(lit[best]) {
			best = i
		}
	}
	return best
}

// indexRare is bytes.Index(s, lit), finding candidates by the byte at
// offset rare of lit. When that byte turns out to be common in s (more
// than one stop in 16 bytes), it leaves the rest of s to bytes.Index,
// whose brute-force search wins there.
func indexRare(s, lit []byte, rare int) int {
	n := len(lit)
	if n <= 1 || len(s) < n {
		return bytes.Index(s, lit)
	}
	b := lit[rare]
	last := len(s) - n + rare // the last place the rare byte can be
	fails := 0
	for i := rare; i <= last; i++ {
		j := bytes.IndexByte(s[i:last+1], b)
		if j < 0 {
			return -1
		}
		i += j
		start := i - rare
		if bytes.Equal(s[start:start+n], lit) {
			return start
		}
		if fails++; fails > 4+i/16 {
			if k := bytes.Index(s[start+1:], lit); k >= 0 {
				return start + 1 + k
			}
			return -1
		}
	}
	return -1
}
