package searchtext

import (
	"strings"
	"testing"
)

func TestTextHeadline(t *testing.T) {
	tests := []struct {
		out  SearchTextOut
		want string
	}{
		{SearchTextOut{Complete: true, TotalMatches: 1, TotalFiles: 1, Revision: "abc"}, "exactly 1 matching line in 1 file at abc\n"},
		{SearchTextOut{Complete: true, TotalMatches: 0, TotalFiles: 0, Revision: "abc"}, "exactly 0 matching lines in 0 files at abc\n"},
		{SearchTextOut{TotalMatches: 3, TotalFiles: 2, Revision: "abc"}, "at least 3 matching lines in 2 files at abc\n"},
	}
	for _, tc := range tests {
		got, _, _ := strings.Cut(tc.out.Text(), "\n")
		if got+"\n" != tc.want {
			t.Errorf("Text() headline = %q, want %q", got+"\n", tc.want)
		}
	}
}
