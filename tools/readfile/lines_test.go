package readfile

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLineSkipsMatchALineWalk: lineStart, a lineIndex and fitLines find what walking
// the text a line at a time finds, for texts of many short lines and few
// long ones (past lineChunk, so that the chunked count crosses chunks),
// with and without a last newline, at every kind of start, count and
// budget.
func TestLineSkipsMatchALineWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		data := randomLines(rng, round)
		total := bytes.Count(data, []byte("\n"))
		index := newLineIndex(data)
		if index.newlines() != total {
			t.Fatalf("round %d: the index counts %d newlines, not %d", round, index.newlines(), total)
		}
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
			if got := index.lineStart(data, start); got != from {
				t.Fatalf("round %d: the index's lineStart(%d) = %d; walking finds %d", round, start, got, from)
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

// TestLineIndexesKeepLargeTexts: an index is kept for a large text of a
// known blob, by blob and length, the oldest dropped past the bound; a
// small text, a text without a blob and a nil cache get a new index each
// time.
func TestLineIndexesKeepLargeTexts(t *testing.T) {
	large := bytes.Repeat([]byte("line\n"), indexedBytes/5+10)
	small := large[:indexedBytes/2]
	same := func(a, b lineIndex) bool { return &a[0] == &b[0] }
	tests := []struct {
		name string
		sha  string
		data []byte
		kept bool
	}{
		{"large text of a blob", "b1", large, true},
		{"small text", "b2", small, false},
		{"no blob (a partial read of the working tree)", "", large, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLineIndexes(2)
			first := l.index(tt.sha, tt.data)
			if got := l.index(tt.sha, tt.data); same(first, got) != tt.kept {
				t.Errorf("kept = %v, want %v", same(first, got), tt.kept)
			}
			if want := bytes.Count(tt.data, []byte("\n")); first.newlines() != want {
				t.Errorf("%d newlines, want %d", first.newlines(), want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		l := newLineIndexes(2)
		first := l.index("b1", large)
		l.index("b2", large)
		if !same(first, l.index("b1", large)) {
			t.Fatal("b1 dropped within the bound")
		}
		l.index("b3", large)
		if same(first, l.index("b1", large)) {
			t.Error("b1 kept past the bound")
		}
		if len(l.byKey) > 2 || len(l.order) > 2 {
			t.Errorf("%d indexes, %d in order, over the bound of 2", len(l.byKey), len(l.order))
		}
	})
	t.Run("by length", func(t *testing.T) {
		l := newLineIndexes(2)
		whole, part := l.index("b1", large), l.index("b1", large[:len(large)-5])
		if same(whole, part) || part.newlines() != whole.newlines()-1 {
			t.Errorf("the blob's first part has the whole's index (%d newlines, whole %d)", part.newlines(), whole.newlines())
		}
	})
	t.Run("nil", func(t *testing.T) {
		var l *lineIndexes
		if l.index("b1", large).newlines() != bytes.Count(large, []byte("\n")) {
			t.Error("a nil cache's index miscounts")
		}
	})
}
