package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A tool's inputSchema may mark arguments with x-mcp-header; a 2026-07-28
// client over Streamable HTTP must then mirror each such argument into an
// Mcp-Param-{Name} header, and must leave out of tools/list every tool
// whose marks break the rules (2026-07-28 Streamable HTTP, Custom Headers
// from Tool Parameters).

// headerPrefix starts every mirrored argument's header name.
const headerPrefix = "Mcp-Param-"

// paramHeader is one argument mirrored into a header: the chain of
// properties keys that leads to it, and the header's name part.
type paramHeader struct {
	path []string
	name string
}

// errInvalidHeaderMark wraps every reason a tool's x-mcp-header marks are refused.
var errInvalidHeaderMark = errors.New("invalid x-mcp-header")

// schemaValueKeywords hold instance values, not schemas: a key named
// x-mcp-header inside them is data, not a mark.
var schemaValueKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// paramHeaders reads the x-mcp-header marks of an inputSchema. A mark is
// valid only on a string, integer or boolean property reached from the
// root through properties keys alone, with a name that is an HTTP token,
// unique without regard to case.
func paramHeaders(schema json.RawMessage) ([]paramHeader, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("%w: inputSchema is not JSON: %v", errInvalidHeaderMark, err)
	}
	var found []paramHeader
	if err := walkHeaderMarks(root, nil, true, &found); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(found))
	for _, h := range found {
		key := strings.ToLower(h.name)
		if seen[key] {
			return nil, fmt.Errorf("%w: %q is used twice (names are compared without case)", errInvalidHeaderMark, h.name)
		}
		seen[key] = true
	}
	return found, nil
}

// walkHeaderMarks visits every schema under node. pure says whether the
// path from the root to node is a chain of properties keys only.
func walkHeaderMarks(node any, path []string, pure bool, found *[]paramHeader) error {
	switch n := node.(type) {
	case []any:
		for _, v := range n {
			if err := walkHeaderMarks(v, path, false, found); err != nil {
				return err
			}
		}
	case map[string]any:
		if mark, ok := n["x-mcp-header"]; ok {
			h, err := headerMark(mark, n, path, pure)
			if err != nil {
				return err
			}
			*found = append(*found, h)
		}
		for key, v := range n {
			switch {
			case schemaValueKeywords[key]:
			case key == "properties":
				props, ok := v.(map[string]any)
				if !ok {
					continue
				}
				for name, sub := range props {
					if err := walkHeaderMarks(sub, append(path[:len(path):len(path)], name), pure, found); err != nil {
						return err
					}
				}
			default:
				if err := walkHeaderMarks(v, path, false, found); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// headerMark checks one mark on the property schema prop at path.
func headerMark(mark any, prop map[string]any, path []string, pure bool) (paramHeader, error) {
	at := "/" + strings.Join(path, "/")
	name, ok := mark.(string)
	switch {
	case !ok:
		return paramHeader{}, fmt.Errorf("%w at %s: the value is not a string", errInvalidHeaderMark, at)
	case !pure || len(path) == 0:
		return paramHeader{}, fmt.Errorf("%w %q at %s: not reached through properties alone", errInvalidHeaderMark, name, at)
	case !isToken(name):
		return paramHeader{}, fmt.Errorf("%w %q at %s: not an HTTP field-name token", errInvalidHeaderMark, name, at)
	}
	switch t, _ := prop["type"].(string); t {
	case "string", "integer", "boolean":
	default:
		return paramHeader{}, fmt.Errorf("%w %q at %s: type %v is not string, integer or boolean", errInvalidHeaderMark, name, at, prop["type"])
	}
	return paramHeader{path: path, name: name}, nil
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// paramHeaderValues returns the headers for a call's arguments (JSON): one
// per marked argument present and not null, its value converted to text
// and encoded as every header value is (see headerValue).
func paramHeaderValues(marks []paramHeader, args json.RawMessage) (map[string]string, error) {
	if len(marks) == 0 || len(bytes.TrimSpace(args)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("client: arguments: %w", err)
	}
	out := make(map[string]string, len(marks))
	for _, m := range marks {
		v := root
		for _, key := range m.path {
			obj, _ := v.(map[string]any)
			v = obj[key] // nil when absent
		}
		var text string
		switch v := v.(type) {
		case nil:
			continue // absent or null: the header is omitted
		case string:
			text = v
		case bool:
			text = strconv.FormatBool(v)
		case json.Number:
			text = v.String()
		default:
			// An object or array where the schema says primitive: the
			// server will refuse the arguments; there is nothing to mirror.
			continue
		}
		out[headerPrefix+m.name] = headerValue(text)
	}
	return out, nil
}
