package gonav

import "bytes"

// A check for declarations only (IgnoreFuncBodies) reads nothing of a
// function declaration's body, yet parsing builds its syntax: most of a
// package's tokens and allocations. blankBodies blanks the bodies out
// before the parse, keeping every byte's offset and every line, so that
// positions, hence keys and API keys, are those of the whole file's.

// blankBodies replaces the contents of the body of each function
// declaration of a Go file's source with spaces, in place, keeping its
// newlines; it returns false, and leaves src as it was, when it cannot
// tell the bodies apart (a brace or quote left open) or the file has a
// line directive, which a body may hold and which moves the positions
// after it. Function literals, composite literals and types are kept:
// only a func declaration's body, the block after its signature, goes.
func blankBodies(src []byte) bool {
	if bytes.Contains(src, []byte("//line ")) || bytes.Contains(src, []byte("/*line ")) {
		return false
	}
	var spans [][2]int // the bodies' insides
	var (
		depth     int           // of (), [] and {}
		lineStart bool   = true // no token yet on the line, or since a semicolon
		inSig     bool          // after a func keyword starting a line at depth 0, before its body
		prev      []byte        // the word just before, when the last token is one
	)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			end, ok := skipComment(src, i)
			if !ok {
				return false
			}
			i = end
			continue
		case c == '"' || c == '\'' || c == '`':
			end, ok := skipQuoted(src, i)
			if !ok {
				return false
			}
			prev, lineStart, i = nil, false, end
			continue
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			word := src[i:j]
			if depth == 0 {
				switch string(word) {
				case "func":
					// A declaration's, not a function type's or
					// literal's after "=" or "]" ([...]func(){f, g}).
					inSig = inSig || lineStart
				case "var", "const", "type", "import":
					inSig = false
				}
			}
			prev, lineStart, i = word, false, j
			continue
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == '{':
			isType := string(prev) == "struct" || string(prev) == "interface"
			if depth == 0 && inSig && !isType {
				end, ok := matchBrace(src, i)
				if !ok {
					return false
				}
				spans = append(spans, [2]int{i + 1, end})
				inSig, prev, lineStart, i = false, nil, false, end+1
				continue
			}
			depth++
		case c == '}':
			depth--
		}
		if depth < 0 {
			return false
		}
		switch c {
		case '\n', ';':
			prev, lineStart = nil, true
		case ' ', '\t', '\r':
		default:
			prev, lineStart = nil, false
		}
		i++
	}
	if depth != 0 {
		return false
	}
	for _, s := range spans {
		for k := s[0]; k < s[1]; k++ {
			if src[k] != '\n' {
				src[k] = ' '
			}
		}
	}
	return true
}

// matchBrace returns the offset of the brace that closes the one at
// open, skipping comments and literals.
func matchBrace(src []byte, open int) (int, bool) {
	depth := 0
	for i := open; i < len(src); {
		switch c := src[i]; {
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			end, ok := skipComment(src, i)
			if !ok {
				return 0, false
			}
			i = end
			continue
		case c == '"' || c == '\'' || c == '`':
			end, ok := skipQuoted(src, i)
			if !ok {
				return 0, false
			}
			i = end
			continue
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i, true
			}
		}
		i++
	}
	return 0, false
}

// skipComment returns the offset after the comment at i.
func skipComment(src []byte, i int) (int, bool) {
	if src[i+1] == '/' {
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return i + j, true
		}
		return len(src), true
	}
	if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
		return i + 2 + j + 2, true
	}
	return 0, false
}

// skipQuoted returns the offset after the string or rune literal at i.
func skipQuoted(src []byte, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == q:
			return j + 1, true
		case c == '\\' && q != '`':
			j++
		case c == '\n' && q != '`':
			return 0, false
		}
	}
	return 0, false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
