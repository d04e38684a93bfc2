package jsonscan

import "iter"

// Members yields the keys (unescaped) and raw values of the members of the
// JSON object that obj holds. It stops at the first syntax error or at the
// end of obj, so for an object cut short, such as the head of a frame too
// large to read whole, it yields the members that are complete.
func Members(obj []byte) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		s := NewScanner(obj)
		if s.Peek() != '{' {
			return
		}
		s.Object(func(key []byte) bool {
			value, ok := s.Raw()
			return ok && yield(string(key), value)
		})
	}
}

// Depth is the deepest nesting of objects and arrays in raw, which must be
// valid JSON. It reads bytes without decoding them, so bounding the depth of
// an absurd document costs its length and nothing more.
func Depth(raw []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
