package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxDepth bounds the nesting of arguments, so that a hostile document
// cannot exhaust the stack of any decoder behind this check.
const MaxDepth = 64

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
