package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/repo-mcp/repo-mcp/harness/source"
	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
	"github.com/repo-mcp/repo-mcp/internal/schemacheck"
)

// Bounds of a tool's schemas as a server sends them: beyond them the
// server is not trusted to describe its tools (see CheckBounds).
const (
	maxSchemaBytes     = 1 << 20
	maxSchemaJSONDepth = 2*maxSchemaDepth + 8
)

// CheckBounds refuses a tool list with a schema larger than 1 MiB or
// nested deeper than a rebuilt schema may be (an object's properties count
// as a level of JSON as well). It scans bytes without decoding them, so an
// absurd schema costs its length and nothing more.
func CheckBounds(descs []source.Descriptor) error {
	for _, d := range descs {
		for _, raw := range []json.RawMessage{d.InputSchema, d.OutputSchema} {
			if len(raw) > maxSchemaBytes {
				return fmt.Errorf("tool %.64q: a schema of %d bytes (the bound is %d)", d.Name, len(raw), maxSchemaBytes)
			}
			if depth := jsonscan.Depth(raw); depth > maxSchemaJSONDepth {
				return fmt.Errorf("tool %.64q: a schema nested %d deep (the bound is %d)", d.Name, depth, maxSchemaJSONDepth)
			}
		}
	}
	return nil
}

// hasProperty reports whether an object schema declares a property.
func hasProperty(schema json.RawMessage, name string) bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	return json.Unmarshal(schema, &s) == nil && s.Properties[name] != nil
}

// maxSchemaDepth bounds the nesting of a rebuilt schema.
const maxSchemaDepth = 32

// keywords the rebuilt schema keeps; every other keyword is dropped.
var (
	schemaMaps = map[string]bool{"properties": true, "$defs": true, "definitions": true, "patternProperties": true}
	schemaOne  = map[string]bool{"items": true, "additionalProperties": true, "not": true, "contains": true, "propertyNames": true}
	schemaList = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
	schemaData = map[string]bool{
		"type": true, "required": true, "enum": true, "const": true, "default": true,
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
		"minLength": true, "maxLength": true, "pattern": true, "format": true,
		"minItems": true, "maxItems": true, "uniqueItems": true, "minProperties": true, "maxProperties": true,
	}
	schemaText = map[string]bool{"description": true, "title": true}
)

// RebuildSchema returns the schema the model sees for a tool's input
// schema: an object schema holding only known keywords, local $refs only,
// every description and title cleaned and capped at textMax bytes.
func RebuildSchema(raw json.RawMessage, textMax int) (json.RawMessage, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil, errors.New(`input schema: the root must be {"type": "object", ...}`)
	}
	out, err := rebuild(root, textMax, 0)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return json.Marshal(out)
}

func rebuild(s any, textMax, depth int) (any, error) {
	if depth > maxSchemaDepth {
		return nil, errors.New("nested too deep")
	}
	switch s := s.(type) {
	case bool:
		return s, nil
	case map[string]any:
		out := make(map[string]any, len(s))
		for k, v := range s {
			var err error
			switch {
			case k == "$ref":
				ref, ok := v.(string)
				if !ok || !strings.HasPrefix(ref, "#") {
					return nil, fmt.Errorf("$ref %v: only references inside the schema are allowed", v)
				}
				out[k] = ref
			case schemaText[k]:
				if t, ok := v.(string); ok {
					out[k] = CleanText(t, textMax)
				}
			case schemaData[k]:
				out[k] = v
			case schemaOne[k] && !isList(v):
				out[k], err = rebuild(v, textMax, depth+1)
			case k == "items" || schemaList[k]:
				list, ok := v.([]any)
				if !ok {
					return nil, fmt.Errorf("%s: want an array", k)
				}
				sub := make([]any, len(list))
				for i := range list {
					if sub[i], err = rebuild(list[i], textMax, depth+1); err != nil {
						break
					}
				}
				out[k] = sub
			case schemaMaps[k]:
				m, ok := v.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s: want an object", k)
				}
				sub := make(map[string]any, len(m))
				for name, child := range m {
					if sub[name], err = rebuild(child, textMax, depth+1); err != nil {
						break
					}
				}
				if k == "definitions" {
					k = "$defs"
				}
				out[k] = sub
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		}
		// draft-07 tuple items become prefixItems.
		if list, ok := out["items"].([]any); ok {
			delete(out, "items")
			out["prefixItems"] = list
		}
		return out, nil
	}
	return nil, fmt.Errorf("a schema must be an object or a boolean, not %T", s)
}

func isList(v any) bool { _, ok := v.([]any); return ok }

// ansiEscape matches terminal escape sequences (CSI and OSC).
var ansiEscape = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b.?`)

// CleanText strips terminal escapes and control characters (newlines and
// tabs become spaces) and caps the text at max bytes, marking the cut.
func CleanText(s string, max int) string {
	s = ansiEscape.ReplaceAllString(s, "")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	const cut = " [description cut]"
	if max > len(cut) && len(s) > max {
		i := max - len(cut)
		for i > 0 && !utfStart(s[i]) {
			i--
		}
		s = s[:i] + cut
	}
	return s
}

func utfStart(b byte) bool { return b&0xC0 != 0x80 }

// Violation is one problem with a call's arguments. The server checks
// arguments with the same checker, so the harness refuses a call in the
// words the server would have used.
type Violation = schemacheck.Violation

// validate checks args against s and returns every violation. Empty
// arguments are an empty object, as the server takes them.
func validate(s *schemacheck.Schema, args json.RawMessage) []Violation {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := schemacheck.Parse(args)
	return s.Check(args, inst, err)
}
