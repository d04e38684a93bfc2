package searchtext

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzIndexRare checks indexRare against bytes.Index, for every offset
// of the literal as the "rare" byte: the answer must not depend on it.
func FuzzIndexRare(f *testing.F) {
	common := strings.Repeat("aaaaab", 40) // the rare byte common: the fall back to bytes.Index
	for _, seed := range []struct{ s, lit string }{
		{"import (\n\t\"bytes\"\n)", "import ("},
		{"", "ab"}, {"a", "ab"}, {"ab", "ab"}, {"xab", "ab"}, {"abx", "b"},
		{"aaaaaaaab", "aab"}, {common + "aac" + common, "aac"}, {common, "bb"},
		{"héllo wörld", "ö"}, {"\xff\xfe\xff", "\xfe\xff"}, {"x", ""},
	} {
		f.Add(seed.s, seed.lit)
	}
	f.Fuzz(func(t *testing.T, s, lit string) {
		want := bytes.Index([]byte(s), []byte(lit))
		for rare := range max(1, len(lit)) {
			if got := indexRare([]byte(s), []byte(lit), rare); got != want {
				t.Fatalf("indexRare(%q, %q, %d) = %d, want %d", s, lit, rare, got, want)
			}
		}
	})
}

func TestRarestByte(t *testing.T) {
	for _, tt := range []struct {
		lit  string
		want int
	}{
		{"import (", 1}, {"// Copyright", 3}, {"e", 0}, {"ee", 0}, {"é", 0}, {"a\xc3", 1},
	} {
		if got := rarestByte([]byte(tt.lit)); got != tt.want {
			t.Errorf("rarestByte(%q) = %d, want %d", tt.lit, got, tt.want)
		}
	}
}
