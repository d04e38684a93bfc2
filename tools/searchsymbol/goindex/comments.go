package goindex

import (
	"bytes"
	"go/token"
	"strings"
)

// The index reads doc comments from the source text instead of asking
// go/parser for comments: with parser.ParseComments, every comment of a
// file (those in function bodies too) becomes a node, which costs a few
// percent of the parse and adds garbage. The rules follow go/ast's: a
// declaration's doc comment is the run of comment lines ending on the line
// just above it, with no blank line between; a line comment is a // comment
// after the declaration on its last line.

// docAbove returns the first sentence of the doc comment of the
// declaration at p, or "" when there is none (or when other code precedes
// it on its line, as for fields of a one-line struct).
func (x *extractor) docAbove(p token.Pos) string {
	off, ok := x.offset(p)
	if !ok {
		return ""
	}
	lineStart := bytes.LastIndexByte(x.src[:off], '\n') + 1
	if len(bytes.TrimSpace(x.src[lineStart:off])) > 0 {
		return ""
	}
	// Find where the run of comment lines above begins, then read it
	// downwards: only its first sentence is needed, and a doc comment can
	// run to thousands of lines (cmd/go's).
	top := lineStart
	for top > 0 {
		start := x.commentLineAbove(top)
		if start < 0 {
			break
		}
		top = start
	}
	return sentenceOf(commentLines(x.src[top:lineStart]))
}

// commentLineAbove returns the start of the comment line (or /* */ block)
// that ends just before offset end, which starts a line, or -1.
func (x *extractor) commentLineAbove(end int) int {
	src := x.src
	start := bytes.LastIndexByte(src[:end-1], '\n') + 1
	line := bytes.TrimSpace(src[start : end-1])
	switch {
	case bytes.HasPrefix(line, []byte("//")):
		return start
	case bytes.HasSuffix(line, []byte("*/")) && !bytes.Contains(line, []byte("//")):
		open := bytes.LastIndex(src[:end-1], []byte("/*"))
		if open < 0 {
			return -1
		}
		blockLine := bytes.LastIndexByte(src[:open], '\n') + 1
		if len(bytes.TrimSpace(src[blockLine:open])) > 0 {
			return -1 // code before the /*
		}
		return blockLine
	}
	return -1
}

// commentLines returns the text of consecutive comment lines, without
// their markers, reading only as far as a first sentence needs.
func commentLines(b []byte) []string {
	var lines []string
	for len(b) > 0 && len(lines) < 64 {
		line := b
		if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
			line, b = b[:nl], b[nl+1:]
		} else {
			b = nil
		}
		line = bytes.TrimSpace(line)
		if rest, ok := bytes.CutPrefix(line, []byte("//")); ok {
			lines = append(lines, string(rest))
			continue
		}
		if rest, ok := bytes.CutPrefix(line, []byte("/*")); ok {
			// A block: its lines up to the closing */.
			block := rest
			if end := bytes.Index(block, []byte("*/")); end < 0 {
				if close := bytes.Index(b, []byte("*/")); close >= 0 {
					block = append(append(block[:len(block):len(block)], '\n'), b[:close]...)
					b = b[close+2:]
				}
			} else {
				block = block[:end]
			}
			lines = append(lines, strings.Split(string(block), "\n")...)
			continue
		}
		break
	}
	return lines
}

// lineComment returns the first sentence of a comment that follows the
// node ending at end on the same line: a // comment, or a /* */ block that
// may run on over the following lines.
func (x *extractor) lineComment(end token.Pos) string {
	off, ok := x.offset(end)
	if !ok {
		return ""
	}
	rest := bytes.TrimLeft(x.src[off:], " \t;,")
	switch {
	case bytes.HasPrefix(rest, []byte("//")):
		if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		return sentenceOf([]string{string(rest[2:])})
	case bytes.HasPrefix(rest, []byte("/*")):
		if close := bytes.Index(rest, []byte("*/")); close >= 0 {
			return sentenceOf(strings.Split(string(rest[2:close]), "\n"))
		}
	}
	return ""
}

func (x *extractor) offset(p token.Pos) (int, bool) {
	if !p.IsValid() || x.tf == nil || int(p) < x.tf.Base() || int(p) > x.tf.Base()+x.tf.Size() {
		return 0, false
	}
	off := x.tf.Offset(p)
	return off, off >= 0 && off <= len(x.src)
}

// buildConstraint returns the expression of the //go:build line in the
// file's header (the text before the package clause at pkg).
func (x *extractor) buildConstraint(pkg token.Pos) string {
	off, ok := x.offset(pkg)
	if !ok {
		return ""
	}
	for line := range strings.Lines(string(x.src[:off])) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:build "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}
