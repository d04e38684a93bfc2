package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// requestIDField is the argument every tool accepts, and the field every
// structured result carries, to correlate a call across logs.
const requestIDField = "request_id"

// maxRequestIDLen bounds a caller-supplied request_id.
const maxRequestIDLen = 128

// reflectSchema returns the JSON Schema of t, as a JSON object: inline (no
// $ref or $defs), without $schema or $id, closed (additionalProperties
// false), with required = the fields without omitempty. It refuses types
// whose schema would not constrain a model: fields without a json tag, `any`
// and other interfaces, functions, channels, and recursive types.
func reflectSchema(t reflect.Type, comments map[string]string) (map[string]any, error) {
	if err := checkType(t, nil, ""); err != nil {
		return nil, err
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s: a tool's input and output must be structs, not %s", t, t.Kind())
	}
	r := &jsonschema.Reflector{
		Anonymous:      true,
		DoNotReference: true,
		ExpandedStruct: true,
		CommentMap:     comments,
		LookupComment:  lookupTagDescription,
	}
	s := r.ReflectFromType(t)
	s.Version = ""
	v, err := schemaMap(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the schema is %v, not an object", t, v)
	}
	delete(m, "$defs")
	// An empty struct still gets a closed object schema.
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	return m, nil
}

// checkType walks t and reports the first construct that would give a
// schema that does not constrain its value. path names the field, for the
// error message; seen holds the struct types on the current path, to find
// recursion.
func checkType(t reflect.Type, seen []reflect.Type, path string) error {
	where := func() string {
		if path == "" {
			return t.String()
		}
		return path + " (" + t.String() + ")"
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkType(t.Elem(), seen, path+"[]")
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("%s: map keys must be strings", where())
		}
		return checkType(t.Elem(), seen, path+"{}")
	case reflect.Interface:
		if t.Implements(jsonMarshaler) {
			break
		}
		return fmt.Errorf("%s: an interface (such as any) gives a schema that accepts anything; use a concrete type", where())
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128, reflect.Uintptr:
		return fmt.Errorf("%s: %s has no JSON form", where(), t.Kind())
	case reflect.Struct:
		if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
			// Types with their own JSON form (time.Time, json.RawMessage's
			// relatives) are trusted to have a schema of their own.
			return nil
		}
		for _, s := range seen {
			if s == t {
				return fmt.Errorf("%s: recursive type; a tool schema must be finite", where())
			}
		}
		seen = append(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			tag, hasTag := f.Tag.Lookup("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if !hasTag && !f.Anonymous {
				return fmt.Errorf("%s.%s: exported field without a json tag; name it explicitly", t, f.Name)
			}
			if _, err := tagDescription(f); err != nil {
				return fmt.Errorf("%s.%s: %w", t, f.Name, err)
			}
			if err := checkType(f.Type, seen, joinPath(path, t, f.Name)); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinPath(path string, t reflect.Type, field string) string {
	if path == "" {
		return t.Name() + "." + field
	}
	return path + "." + field
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// withRequestID adds the optional request_id string property to an input
// schema (unless the type declares it itself) and reports whether it added it.
func withRequestID(schema map[string]any) bool {
	props, _ := schema["properties"].(map[string]any)
	if _, ok := props[requestIDField]; ok {
		return false
	}
	props[requestIDField] = map[string]any{
		"type":        "string",
		"description": "Optional caller-chosen id, echoed in the result and in the server's logs; one is generated when absent.",
		"maxLength":   float64(maxRequestIDLen), // as JSON decodes it, like the rest of the map
		"pattern":     `^[!-~]+$`,
	}
	schema["properties"] = props
	return true
}

// withResultRequestID adds the request_id property every structured result
// carries to an output schema.
func withResultRequestID(schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	if _, ok := props[requestIDField]; ok {
		return
	}
	props[requestIDField] = map[string]any{
		"type":        "string",
		"description": "The call's request id.",
	}
	req, _ := schema["required"].([]any)
	schema["required"] = append(req, requestIDField)
}
