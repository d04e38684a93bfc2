package patch

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkLocate reads a 10-file diff and applies it to 10 files of 4000
// lines, without the protocol or the object store: exact, a git diff whose
// headers are right; lenient, the same diff without prefixes, its headers
// 40 lines off and its counts wrong, so every hunk is searched for in the
// whole file.
func BenchmarkLocate(b *testing.B) {
	var base strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&base, "\tline %d of the file: x := compute(%d)\n", i, i*7)
	}
	content := []byte(base.String())
	diff := func(lenient bool) string {
		var d strings.Builder
		for f := range 10 {
			at := 400*f + 200
			if lenient {
				fmt.Fprintf(&d, "--- f%d.go\n+++ f%d.go\n@@ -%d,9 +%d,2 @@\n", f, f, at+40, at+40)
			} else {
				fmt.Fprintf(&d, "--- a/f%d.go\n+++ b/f%d.go\n@@ -%d,6 +%d,7 @@\n", f, f, at+1, at+1)
			}
			for k := at; k < at+3; k++ {
				fmt.Fprintf(&d, " \tline %d of the file: x := compute(%d)\n", k, k*7)
			}
			fmt.Fprintf(&d, "+\tinserted()\n")
			for k := at + 3; k < at+6; k++ {
				fmt.Fprintf(&d, " \tline %d of the file: x := compute(%d)\n", k, k*7)
			}
		}
		return d.String()
	}
	for _, mode := range []string{"exact", "lenient"} {
		text := diff(mode == "lenient")
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				var n notes
				edits, err := parseUnified(normalizeInput(text, &n), &n)
				if err != nil {
					b.Fatal(err)
				}
				for _, fe := range edits {
					fh := &fileHunks{path: fe.to, base: splitLines(content), notes: &n}
					if _, err := fh.apply(fe.hunks); err != nil {
						b.Fatal(err)
					}
				}
				if (len(n.list) > 0) != (mode == "lenient") {
					b.Fatalf("corrections %v", n.list)
				}
			}
		})
	}
}
