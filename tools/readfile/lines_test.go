package readfile

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLineSkipsMatchALineWalk: lineStart and fitLines find what walking
// the text a line at a time finds, for texts of many short lines and few
// long ones (past lineChunk, so that the chunked count crosses chunks),
// with and without a last newline, at every kind of start, count and
// budget.
func TestLineSkipsMatchALineWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		data := randomLines(rng, round)
		total := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			total++
		}
		for range 20 {
			start := 1 + rng.IntN(max(total, 1))
			limit := rng.IntN(total+2) - 1
			budget := int64(rng.IntN(len(data)+2)) - 1
			if start > total {
				continue
			}
			from := walkTo(data, start)
			if got := lineStart(data, start); got != from {
				t.Fatalf("round %d: lineStart(%d) = %d; walking finds %d", round, start, got, from)
			}
			wantEnd, wantLines := walkFit(data[from:], limit, budget)
			if end, lines := fitLines(data[from:], limit, budget); end != wantEnd || lines != wantLines {
				t.Fatalf("round %d: fitLines(start %d, limit %d, budget %d) = %d, %d; walking finds %d, %d",
					round, start, limit, budget, end, lines, wantEnd, wantLines)
			}
		}
	}
}

// randomLines makes a text of random lines: short ones mostly, some past
// lineChunk, in UTF-8 with multibyte characters, the last newline dropped
// every other time.
func randomLines(rng *rand.Rand, round int) []byte {
	var b strings.Builder
	for range rng.IntN(400) {
		n := rng.IntN(80)
		if rng.IntN(50) == 0 {
			n = lineChunk + rng.IntN(lineChunk)
		}
		b.WriteString(strings.Repeat("é", n/2))
		b.WriteByte('\n')
	}
	s := b.String()
	if round%2 == 1 {
		s = strings.TrimSuffix(s, "\n")
	}
	return []byte(s)
}

// walkTo and walkFit are the line-at-a-time walks lineStart and fitLines
// replace.
func walkTo(data []byte, start int) int {
	pos := 0
	for line := 1; line < start; line++ {
		pos += bytes.IndexByte(data[pos:], '\n') + 1
	}
	return pos
}

func walkFit(data []byte, limit int, budget int64) (end, lines int) {
	for ; lines < limit && end < len(data); lines++ {
		next := len(data)
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			next = end + i + 1
		}
		if int64(next) > budget {
			break
		}
		end = next
	}
	return end, lines
}
