package searchtext

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"testing"
)

// lineFilterCases are patterns and the prefilter each must get: class,
// exact, lits, high (bytes, all non-ASCII), bytes or none.
var lineFilterCases = []struct {
	in     SearchTextIn
	filter string
}{
	{SearchTextIn{Pattern: `\p{Han}`, Mode: "regexp"}, "high"},
	{SearchTextIn{Pattern: `[^\x00-\x7f]`, Mode: "regexp"}, "high"},
	{SearchTextIn{Pattern: `[α-ω]+`, Mode: "regexp"}, "high"},
	{SearchTextIn{Pattern: `[A-Z]{5,}`, Mode: "regexp"}, "bytes"},
	{SearchTextIn{Pattern: `[A-Z]{4}\b`, Mode: "regexp"}, "bytes"},
	{SearchTextIn{Pattern: `\d{4}-\d{2}-\d{2}`, Mode: "regexp"}, "lits"},
	{SearchTextIn{Pattern: `\bv[0-9]+\b`, Mode: "regexp"}, "lits"},
	{SearchTextIn{Pattern: "error", Case: "insensitive"}, "exact"}, // ASCII folding
	{SearchTextIn{Pattern: "abcd", Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: "V12 V", Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: "2024-01", Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: "G", Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: "trailing abcdef", Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: "kelvin", Case: "insensitive"}, "lits"},
	{SearchTextIn{Pattern: "state", Case: "insensitive"}, "lits"},
	{SearchTextIn{Pattern: `^\s*$`, Mode: "regexp"}, "class"},
	{SearchTextIn{Pattern: `^$`, Mode: "regexp"}, "class"},
	{SearchTextIn{Pattern: `^[ \t]+$`, Mode: "regexp"}, "class"},
	{SearchTextIn{Pattern: `^ {2,}$`, Mode: "regexp"}, "lits"},
	{SearchTextIn{Pattern: `^\s*$|x`, Mode: "regexp"}, "none"},
	{SearchTextIn{Pattern: `$^`, Mode: "regexp"}, "none"},
	{SearchTextIn{Pattern: `^\t{1,2}$`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `^\s*`, Mode: "regexp"}, "none"},
	{SearchTextIn{Pattern: `^[^a]*$`, Mode: "regexp"}, "none"},
	{SearchTextIn{Pattern: `\w+\(\)`, Mode: "regexp"}, "lits"},
	{SearchTextIn{Pattern: "ERROR"}, "exact"},
	{SearchTextIn{Pattern: "func F() {}"}, "exact"},
	{SearchTextIn{Pattern: "st", Case: "insensitive"}, "exact"}, // ſ too
	{SearchTextIn{Pattern: "k", Case: "insensitive"}, "exact"},  // the Kelvin sign too
	{SearchTextIn{Pattern: `世|ω|ABCD`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `[βγ]`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: "\ufffd"}, "high"}, // the expression finds it in each invalid byte
	{SearchTextIn{Pattern: "bad\ufffd", Case: "insensitive"}, "bytes"},
	{SearchTextIn{Pattern: "ABCD", WholeWord: true}, "exact"},
	{SearchTextIn{Pattern: "err", WholeWord: true}, "exact"},
	{SearchTextIn{Pattern: "abcd", WholeWord: true, Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: "Err", WholeWord: true, Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: "...", WholeWord: true}, "exact"},
	{SearchTextIn{Pattern: "é", WholeWord: true}, "exact"},
	{SearchTextIn{Pattern: `^import`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `}$`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `^err$`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `(Writer_|er_|r_|\.yaml1)$`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `\b(rr|err)$`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `ERR$`, Mode: "regexp", Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: `^ERR\b`, Mode: "regexp", Case: "insensitive"}, "exact"},
	{SearchTextIn{Pattern: `^\t+return`, Mode: "regexp"}, "lits"},
	{SearchTextIn{Pattern: `(Reader|Writer)\b`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `\.(go|md|yaml)\b`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `err(or)?s?\.New`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `\t{3}if`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `(?:foo|bar|baz)`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `\Berr\B`, Mode: "regexp"}, "exact"},
	{SearchTextIn{Pattern: `\b(?:a|b)?err`, Mode: "regexp"}, "exact"},
}

// TestLineFiltersAgree checks that the literal and byte prefilters, and
// the exact literals that stand for the expression, find exactly the
// lines the expression alone finds, line by line and in count, on text
// with ASCII, multi-byte UTF-8, invalid bytes and runs at line edges.
func TestLineFiltersAgree(t *testing.T) {
	text := []byte("package main\n\nfunc F() {}\nconst ERROR = \"ÉRROR\" // Error\n" +
		"HTTPS ABCDE ABCD\n世界 hello 中文\nα β γ ω\n\xff\xfe bad bytes\n" +
		"date 2024-01-02 and v12 v\nKelvin \u212a sign\nſtate\n\n" + edgeText + "trailing" + " ABCDEF")
	for _, tt := range lineFilterCases {
		t.Run(tt.in.Pattern, func(t *testing.T) {
			m, err := compile(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			filter := "none"
			switch {
			case m.class != nil:
				filter = "class"
			case m.exact:
				filter = "exact"
			case m.lits != nil:
				filter = "lits"
			case m.high:
				filter = "high"
			case m.bytes != nil:
				filter = "bytes"
			}
			if filter != tt.filter {
				t.Errorf("prefilter %s, want %s", filter, tt.filter)
			}
			var got []string
			m.eachLine(text, func(line, _, _, col int) bool {
				got = append(got, fmt.Sprintf("%d:%d", line, col))
				return true
			})
			want := linesMatching(m.line, text)
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
			if n := m.countLines(text); n != len(want) {
				t.Errorf("counted %d lines, want %d", n, len(want))
			}
		})
	}
}

// edgeText has words at every kind of edge: line ends, underscores and
// digits, multi-byte and invalid bytes, a word in a longer word.
const edgeText = "err\nerr err_ err1 errors xerr\téerr\xfferr err\xff (err)\n\terr.New(\"\") errs.New error.New\n" +
	"import (\n  import\nx := y}\n}\n}}\n\t\t\tif err != nil {\n\t\treturn\nfoo bar bazaar Reader Writer_ a.go b.md c.yaml1\n" +
	"abcd ABCD aBcD abcdé ... a... ...a é éé xé\nerr"

// FuzzLineFilters checks, on any text, that every pattern of
// lineFilterCases finds with its prefilter the lines its expression finds.
func FuzzLineFilters(f *testing.F) {
	f.Add(edgeText)
	f.Add("err\n\n\xff_err_\nerr")
	f.Add("")
	f.Add("abcdefgh\nabcdefgé\nabcdefg\xffabcdefgh中\n\n1234567890123456ω\nα")
	f.Add("\n \n\t\n\n  \n\t\t \t\n \x0c\r\n\xa0\nx \n")
	var ms []*matcher
	for _, tt := range lineFilterCases {
		m, err := compile(tt.in)
		if err != nil {
			f.Fatal(err)
		}
		ms = append(ms, m)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for i, m := range ms {
			var got []string
			m.eachLine([]byte(text), func(line, _, _, col int) bool {
				got = append(got, fmt.Sprintf("%d:%d", line, col))
				return true
			})
			want := linesMatching(m.line, []byte(text))
			if !slices.Equal(got, want) {
				t.Fatalf("%q: got %q, want %q", lineFilterCases[i].in.Pattern, got, want)
			}
			if n := m.countLines([]byte(text)); n != len(want) {
				t.Fatalf("%q: counted %d lines, want %d", lineFilterCases[i].in.Pattern, n, len(want))
			}
		}
	})
}

// linesMatching matches re against each line of text alone.
func linesMatching(re *regexp.Regexp, text []byte) []string {
	if len(text) == 0 {
		return nil // no line at all, as grep sees it
	}
	var out []string
	for i, l := range bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n")) {
		if loc := re.FindIndex(l); loc != nil {
			out = append(out, fmt.Sprintf("%d:%d", i+1, loc[0]+1))
		}
	}
	return out
}
