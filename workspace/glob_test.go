package workspace

import "testing"

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		match, prefix bool
	}{
		{"**/*.go", "a.go", true, true},
		{"**/*.go", "x/y/a.go", true, true},
		{"**/*.go", "x/y", false, true},
		{"*.go", "x/a.go", false, false},
		{"docs/**", "docs", true, true},
		{"docs/**", "docs/a/b", true, true},
		{"docs/**", "src", false, false},
		{"src/*.go", "src", false, true},
		{"src/*.go", "src/a.go", true, true},
		{"src/*.go", "src/a/b.go", false, false},
		{"a/**/b/**/c", "a/x/b/y/z/c", true, true},
		{"a/**/**/c", "a/c", true, true},
		{"/a/b", "a/b", true, true},
		{"a/[bc]/d", "a/c/d", true, true},
	} {
		g, err := ParseGlob(tc.pattern)
		if err != nil {
			t.Fatalf("ParseGlob(%q): %v", tc.pattern, err)
		}
		if got := g.Match(tc.path); got != tc.match {
			t.Errorf("%q.Match(%q) = %v", tc.pattern, tc.path, got)
		}
		if got := g.MatchPrefix(tc.path); got != tc.prefix {
			t.Errorf("%q.MatchPrefix(%q) = %v", tc.pattern, tc.path, got)
		}
	}
	for _, bad := range []string{"", "/", "a/[", `a\b`, "a\x00"} {
		if _, err := ParseGlob(bad); err == nil {
			t.Errorf("ParseGlob(%q) accepted", bad)
		}
	}
}
