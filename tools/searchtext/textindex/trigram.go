package textindex

import "bytes"

// A trigram is three bytes, the first in the high bits of the low 24.
type trigram = uint32

// seenSet is a set of trigrams as a bitmap (2 MiB), reused across blobs:
// extracting a blob's distinct trigrams costs a few operations per byte
// and no allocation.
type seenSet []uint64

func newSeenSet() seenSet { return make(seenSet, 1<<24/64) }

// seenPool keeps a build's seen sets for reuse, up to its capacity; a
// source running more goroutines than that allocates the others.
type seenPool chan seenSet

func (p seenPool) get() seenSet {
	select {
	case s := <-p:
		return s
	default:
		return newSeenSet()
	}
}

func (p seenPool) put(s seenSet) {
	select {
	case p <- s:
	default:
	}
}

// BinarySniffBytes is how much of a blob is looked at to call it binary:
// git's rule (a NUL byte in the first 8000 bytes), so that a search skips
// exactly the files git grep -I skips.
const BinarySniffBytes = 8000

// IsBinary reports whether data is binary by git's rule.
func IsBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), BinarySniffBytes)], 0) >= 0
}

// appendTrigrams appends the distinct trigrams of data to dst, in order
// of first appearance. Trigrams holding a newline are left out: searches
// match within one line, so a plan never asks for them.
func appendTrigrams(dst []trigram, data []byte, seen seenSet) []trigram {
	start := len(dst)
	var t trigram
	run := 0 // bytes since the last newline
	for _, c := range data {
		if c == '\n' {
			run = 0
			continue
		}
		t = (t<<8 | trigram(c)) & 0xFFFFFF
		if run++; run < 3 {
			continue
		}
		w, bit := &seen[t>>6], uint64(1)<<(t&63)
		if *w&bit == 0 {
			*w |= bit
			dst = append(dst, t)
		}
	}
	for _, t := range dst[start:] {
		seen[t>>6] = 0
	}
	return dst
}
