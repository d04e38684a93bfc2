package goindex

import (
	"math/bits"
	"strings"
)

// tier is how well a name matches a query; lower is better.
type tier uint8

const (
	tierExact     tier = iota // the name, case and all
	tierFoldExact             // the name, ignoring case
	tierPrefix                // a prefix of the name, ignoring case
	tierCamel                 // a prefix of the initials of its camel-case words: NR for NewReader
	tierSubstring             // a substring, ignoring case
	tierFuzzy                 // the query's characters in order, ignoring case
	tierRegexp                // matched by the regular expression
	noMatch
)

var tierNames = [...]string{"exact", "exact_fold", "prefix", "initials", "substring", "fuzzy", "regexp"}

func (t tier) String() string { return tierNames[t] }

// charMask returns a bit per character class in s (which is lower case):
// one per letter and digit, one for '_', one for any other byte. A name can
// match a query (in any tier but regexp) only if it has every bit the
// query has.
func charMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); i++ {
		m |= 1 << charClass(s[i])
	}
	return m
}

// charClass returns the number of the class of c, a lower-case byte: 0-25
// for letters, 26-35 for digits, 36 for '_', 37 for any other byte.
func charClass(c byte) uint {
	switch {
	case 'a' <= c && c <= 'z':
		return uint(c - 'a')
	case '0' <= c && c <= '9':
		return uint(26 + c - '0')
	case c == '_':
		return 36
	}
	return 37
}

// leadShift places the class of a name's first character in its mask,
// above the character classes' bits: a scan for prefixes skips names that
// start with another character without reading them.
const (
	leadShift = 58
	leadBits  = 63 << leadShift
)

// nameMask returns the mask of a declared name's lower case, s: its
// charMask and the class of its first character.
func nameMask(s string) uint64 {
	return charMask(s) | lead(s)
}

// lead returns the class of the first character of s, in place in a mask,
// or 0 for "".
func lead(s string) uint64 {
	if s == "" {
		return 0
	}
	return uint64(charClass(s[0])+1) << leadShift
}

// wordStart reports whether name[i] begins a camel-case word: the first
// letter, an upper-case letter after a lower-case one or a digit, the last
// upper-case letter of an acronym followed by a lower-case letter (the S of
// HTTPServer), or anything after an underscore.
func wordStart(name string, i int) bool {
	if i == 0 {
		return true
	}
	c, prev := name[i], name[i-1]
	switch {
	case prev == '_':
		return c != '_'
	case isUpper(c):
		return !isUpper(prev) || i+1 < len(name) && isLower(name[i+1])
	case isDigit(c):
		return !isDigit(prev)
	}
	return false
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// initials returns the lower-cased first letters of name's camel-case words.
func initials(name string) string {
	var b []byte
	for i := 0; i < len(name); i++ {
		if wordStart(name, i) && name[i] != '_' {
			c := name[i]
			if isUpper(c) {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
	}
	return string(b)
}

// wordStarts returns a bit per byte of name (up to 64) that begins a
// camel-case word.
func wordStarts(name string) uint64 {
	var m uint64
	for i := range min(len(name), 64) {
		if wordStart(name, i) {
			m |= 1 << i
		}
	}
	return m
}

// fuzzyScore matches the characters of q (lower case) in order within
// n.lower, greedily, preferring the starts of camel-case words. It returns a
// score in [0, 1000], higher for matches on word starts, in runs, and
// covering more of the name, and false if q is not a subsequence of it.
func fuzzyScore(n *nameData, q string) (int, bool) {
	lower, starts := n.lower, n.starts
	isStart := func(i int) bool { return i < 64 && starts&(1<<i) != 0 }
	score, pos, prev := 0, 0, -2
	for k := 0; k < len(q); k++ {
		c := q[k]
		i := strings.IndexByte(lower[pos:], c)
		if i < 0 {
			return 0, false
		}
		i += pos
		// Prefer a later word start holding c, if the rest of q still fits
		// after it.
		if !isStart(i) && i != prev+1 {
			for rest := starts &^ (1<<(i+1) - 1); rest != 0 && i < 63; rest &= rest - 1 {
				j := bits.TrailingZeros64(rest)
				if j < len(lower) && lower[j] == c && isSubsequence(lower[j+1:], q[k+1:]) {
					i = j
					break
				}
			}
		}
		score++
		if isStart(i) {
			score += 2
		}
		if i == prev+1 {
			score += 2
		}
		prev, pos = i, i+1
	}
	// Weigh the quality of the match (word starts, runs) and how much of
	// the name it covers: "srvr" is a better match for Server than for
	// storeRcvr.
	quality := score * 600 / (5 * len(q))
	coverage := len(q) * 400 / len(lower)
	return min(quality+coverage, 1023), true
}

func isSubsequence(s, q string) bool {
	for k := 0; k < len(q); k++ {
		i := strings.IndexByte(s, q[k])
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}
