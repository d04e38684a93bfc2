package gonav

import "testing"

// TestListedHeader: what go list reads of a file is its header and its
// //go: directives, wherever they are, and nothing else.
func TestListedHeader(t *testing.T) {
	// The header ends with the imports, before their line's end.
	const hd = "//go:build linux\n\npackage p\n\nimport \"os\""
	const head = hd + "\n"
	tests := []struct{ name, src, want string }{
		{"no directive", head + "\nvar x = 1\n", hd},
		{"directives", head + "\n//go:embed a.txt\nvar a string\n\n//go:generate echo\n", hd + "//go:embed a.txt\n//go:generate echo\n"},
		{"right after the imports", head + "//go:embed a.txt\nvar a string\n", hd + "//go:embed a.txt\n"},
		{"on the imports' line", hd + "//go:embed a.txt\n", hd + "//go:embed a.txt\n"},
		{"not at a line's start", head + "var s = \"//go:embed x\" // //go:noinline\n\t//go:embed y\n", hd},
		{"last line unended", head + "\n//go:embed a.txt", hd + "//go:embed a.txt"},
		{"one directive after another's text", head + "//go://go:embed b\n", hd + "//go://go:embed b\n"},
		{"no package clause", "var x = 1\n//go:embed a\n", "var x = 1\n//go:embed a\n"},
	}
	for _, tc := range tests {
		if got := string(listedHeader([]byte(tc.src))); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
