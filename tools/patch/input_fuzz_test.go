package patch

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// FuzzReadInput reads arbitrary text as a diff or an envelope and applies
// every file's hunks to arbitrary content. Nothing may panic, and a hunk
// applied without a correction that changes lines (whitespace, line ends,
// the final newline), and without CRs about, must leave its new lines in
// the result verbatim.
func FuzzReadInput(f *testing.F) {
	names, _ := filepath.Glob("testdata/lenient/*.txtar")
	for _, name := range names {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if file.Name == "input" {
				f.Add(string(file.Data), "line 1\nline 2\nline 3\nfunc Add(a, b int) int {\n\treturn a + b\n}\n- one\n- two\n- three")
			}
		}
	}
	if len(names) == 0 {
		f.Fatal("no corpus in testdata/lenient")
	}
	f.Fuzz(func(t *testing.T, text, base string) {
		var n notes
		text = normalizeInput(text, &n)
		var edits []*fileEdit
		var err error
		if isEnvelope(text) {
			edits, err = parseEnvelope(text)
		} else {
			edits, err = parseUnified(text, &n)
		}
		if err != nil {
			return
		}
		for _, fe := range edits {
			before := len(n.list)
			fh := &fileHunks{path: "p", base: splitLines([]byte(base)), notes: &n}
			out, err := fh.apply(fe.hunks)
			if err != nil {
				continue
			}
			// Matching up to CR keeps the file's context lines, CR and all.
			rewrote := strings.Contains(base, "\r") || strings.Contains(text, "\r")
			for _, c := range n.list[before:] {
				rewrote = rewrote || c.Kind == fixSpace || c.Kind == fixEOL || c.Kind == fixNoNewline
			}
			for _, h := range fe.hunks {
				var want bytes.Buffer
				writeLines(&want, h.new)
				if !rewrote && !bytes.Contains(out, want.Bytes()) {
					t.Fatalf("hunk %d's new lines %q are not in the result %q", h.n, want.String(), out)
				}
			}
		}
	})
}
