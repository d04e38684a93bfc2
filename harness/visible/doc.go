// Package visible makes text from models, servers and repositories safe to
// show to a person or to give to a model: every character that a terminal
// or a reader would interpret instead of showing (C0 and C1 controls, DEL,
// escape sequences, bidirectional overrides and other invisible format
// characters, line and paragraph separators) is replaced by a visible
// spelling of itself. Nothing is removed, so a person still sees that the
// text held something, and where.
//
//	fmt.Fprintln(terminal, visible.Text(preview))   // "\x1b[8m" is shown, not obeyed
//	line := visible.JSON(encoded)                    // the same runes as \uXXXX escapes
//
// Text keeps tabs and newlines, for multi-line text (a diff, a file); Line
// escapes them too, for text that must stay on one line (a table cell, a
// prompt). JSON escapes the same characters inside encoded JSON, so a JSONL
// stream or log stays one object per line and decodes to the text as it
// was. Unsafe is the rule all three share.
package visible
