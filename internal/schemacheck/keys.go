package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
)

// MaxDepth bounds the nesting of arguments, so that a hostile document
// cannot exhaust the stack of any decoder behind this check.
const MaxDepth = 64

// keys returns what checkKeys would. Arguments are almost always an
// object of a few lower-case keys, which one pass over the bytes without
// allocating shows to be clean (keysClean); anything else is scanned token
// by token, which reports exactly what is wrong.
func (s *Schema) keys(args []byte) (out []Violation, fatal bool) {
	if !s.mixedCase {
		scan := jsonscan.NewScanner(args)
		if scan.Peek() == '{' && keysClean(&scan, 1) && scan.End() {
			return nil, false
		}
	}
	return s.checkKeys(args)
}

// maxCleanKeys bounds the keys of one object keysClean compares with each
// other; an object with more is left to checkKeys.
const maxCleanKeys = 16

// keysClean reads the next value and reports whether it is valid JSON in
// which no object repeats a key or has a key with a letter other than
// lower-case ASCII, nested less deep than MaxDepth allows. When every
// declared property is lower case (Schema.mixedCase unset), such a key
// can be neither a duplicate nor a case variant of one. depth is the
// nesting the value would open, as checkKeys counts it.
func keysClean(scan *jsonscan.Scanner, depth int) bool {
	switch scan.Peek() {
	case '{':
		if depth >= MaxDepth-1 {
			return false
		}
		var seen [maxCleanKeys][]byte
		n := 0
		return scan.Object(func(key []byte) bool {
			if n == maxCleanKeys || !lowerASCII(key) {
				return false
			}
			for _, k := range seen[:n] {
				if bytes.Equal(k, key) {
					return false
				}
			}
			seen[n] = key
			n++
			return keysClean(scan, depth+1)
		})
	case '[':
		if depth >= MaxDepth-1 {
			return false
		}
		return scan.Array(func() bool { return keysClean(scan, depth+1) })
	default:
		return scan.Skip()
	}
}

// lowerASCII reports whether key has no byte that is an upper-case letter
// or outside ASCII.
func lowerASCII(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// checkKeys scans args token by token and reports duplicate object keys
// and keys that differ from a declared property only in case: a decoder
// into Go structs would take the last duplicate, or the variant, silently.
// It reports fatal when the document cannot be validated at all: not JSON,
// not an object, or nested too deep.
func (s *Schema) checkKeys(args []byte) (out []Violation, fatal bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return []Violation{{Message: "arguments are not valid JSON: " + err.Error()}}, true
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return []Violation{{Message: "arguments must be a JSON object"}}, true
	}
	if err := s.scanObject(dec, "", "", 1, &out); err != nil {
		return []Violation{{Message: "arguments are not valid JSON: " + err.Error()}}, true
	}
	if _, err := dec.Token(); err != io.EOF {
		return []Violation{{Message: "arguments are followed by extra data"}}, true
	}
	return out, false
}

// scanObject reads the members of an object whose '{' has been read. at is
// the object's JSON pointer and pattern the same with indexes as "*".
func (s *Schema) scanObject(dec *json.Decoder, at, pattern string, depth int, out *[]Violation) error {
	seen := make(map[string]bool)
	declared := s.properties[pattern]
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		here := at + "/" + EscapeToken(key)
		switch {
		case seen[key]:
			*out = append(*out, Violation{Pointer: here, Message: fmt.Sprintf("duplicate key %q", key)})
		case declared != nil:
			if exact, ok := declared[strings.ToLower(key)]; ok && exact != key {
				*out = append(*out, Violation{Pointer: here, Message: fmt.Sprintf("unknown key %q: keys are case-sensitive; did you mean %q?", key, exact)})
			}
		}
		seen[key] = true
		if err := s.scanValue(dec, here, pattern+"/"+EscapeToken(key), depth, out); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

func (s *Schema) scanValue(dec *json.Decoder, at, pattern string, depth int, out *[]Violation) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= MaxDepth {
		return fmt.Errorf("nested deeper than %d levels", MaxDepth)
	}
	if d == '{' {
		return s.scanObject(dec, at, pattern, depth+1, out)
	}
	for i := 0; dec.More(); i++ {
		if err := s.scanValue(dec, at+"/"+strconv.Itoa(i), pattern+"/*", depth+1, out); err != nil {
			return err
		}
	}
	_, err = dec.Token() // ']'
	return err
}
