package goindex

import (
	"strings"
	"unicode/utf8"
)

const (
	maxSignature = 240 // bytes of a signature line
	maxDoc       = 240 // bytes of a doc sentence
)

// collapseSpace returns b with each run of white space replaced by one space
// and outer space trimmed, cut to at most max bytes (on a rune boundary,
// marked with "…").
func collapseSpace(b []byte, max int) string {
	out := make([]byte, 0, min(len(b), max+1))
	space := false
	for _, c := range b {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			space = len(out) > 0
			continue
		}
		last := byte(0)
		if len(out) > 0 {
			last = out[len(out)-1]
		}
		switch {
		case c == ')' || c == ']':
			// "(\n\ta int,\n)" reads as "(a int)".
			if space && last == ',' {
				out = out[:len(out)-1]
			}
		case space && last != '(' && last != '[':
			out = append(out, ' ')
		}
		space = false
		out = append(out, c)
		if len(out) > max {
			break
		}
	}
	return truncate(string(out), max)
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// sentenceOf returns the first sentence of a comment given as lines of
// text without their comment markers: its text up to the first period
// followed by white space, or its first paragraph when there is no such
// period. Directives (go:generate, ...) are skipped.
func sentenceOf(lines []string) string {
	var text []byte
	for _, l := range lines {
		if isDirective(l) {
			continue
		}
		l = strings.TrimSpace(l)
		if l == "" {
			if len(text) > 0 {
				break
			}
			continue
		}
		if len(text) > 0 {
			text = append(text, ' ')
		}
		text = append(text, l...)
		if sentenceEnd(text) > 0 || len(text) > 4*maxDoc {
			break
		}
	}
	return sentence(text)
}

func sentence(text []byte) string {
	if end := sentenceEnd(text); end > 0 {
		text = text[:end]
	}
	return truncate(string(text), maxDoc)
}

// sentenceEnd returns the length of the first sentence of text, or 0.
func sentenceEnd(text []byte) int {
	for i, c := range text {
		if (c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ') {
			if i+1 == len(text) {
				return 0 // may continue on the next line ("e.g." or a version number)
			}
			return i + 1
		}
	}
	return 0
}

// isDirective reports whether a line comment's text (after "//") is a
// directive such as "go:generate" or "lint:ignore".
func isDirective(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i+1 >= len(s) || s[i+1] == ' ' {
		return false
	}
	for _, c := range s[:i] {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
