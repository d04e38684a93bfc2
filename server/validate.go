package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// maxViolations bounds how many problems one invalid_input result lists.
const maxViolations = 50

// maxArgumentDepth bounds the nesting of arguments, so that a hostile
// document cannot exhaust the stack of any decoder behind this one.
const maxArgumentDepth = 64

// A Violation is one problem with a call's arguments.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is
	// the arguments object itself.
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// validator checks raw arguments against a tool's input schema.
type validator struct {
	schema *jsonschema.Schema
	// properties maps the case-folded name of every property, at every
	// object nesting the schema declares, to its exact name, so that
	// "Path" is reported as a case variant of "path".
	properties map[string]map[string]string
}

// refuseLoader refuses every external schema: tool schemas are inline.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema loading is disabled (%s)", url)
}

func newValidator(name string, schema map[string]any) (*validator, error) {
	// Round-trip through the library's own decoder so that numbers have
	// the representation it expects.
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + name + ".input.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	v := &validator{schema: s, properties: make(map[string]map[string]string)}
	v.collectProperties("", schema)
	return v, nil
}

// collectProperties records the property names of every object schema
// reachable through "properties" and "items", keyed by a pointer pattern
// in which array indexes are "*".
func (v *validator) collectProperties(at string, schema map[string]any) {
	if props, ok := schema["properties"].(map[string]any); ok {
		names := make(map[string]string, len(props))
		for name, sub := range props {
			names[strings.ToLower(name)] = name
			if m, ok := sub.(map[string]any); ok {
				v.collectProperties(at+"/"+escapePointer(name), m)
			}
		}
		v.properties[at] = names
	}
	if items, ok := schema["items"].(map[string]any); ok {
		v.collectProperties(at+"/*", items)
	}
}

// validate returns every problem with args, or nil. inst is args as
// jsonschema.UnmarshalJSON decoded it, or parseErr why it could not.
func (v *validator) validate(args []byte, inst any, parseErr error) []Violation {
	// Key problems (duplicates, case variants) come first; the schema's
	// problems follow, so that one result lists everything to fix.
	out, fatal := v.checkKeys(args)
	if fatal {
		return out
	}
	if parseErr != nil {
		return append(out, Violation{Pointer: "", Message: "arguments are not valid JSON: " + parseErr.Error()})
	}
	err := v.schema.Validate(inst)
	if err == nil {
		return out
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return append(out, Violation{Pointer: "", Message: err.Error()})
	}
	p := message.NewPrinter(language.English)
	leaves(ve, func(e *jsonschema.ValidationError) {
		if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			// They come in the order of a map's iteration.
			k.Properties = slices.Sorted(slices.Values(k.Properties))
		}
		out = append(out, Violation{
			Pointer: pointer(e.InstanceLocation),
			Message: e.ErrorKind.LocalizedString(p),
		})
	})
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Pointer, b.Pointer) })
	out = slices.Compact(out)
	if len(out) > maxViolations {
		out = append(out[:maxViolations], Violation{Message: "more problems not shown"})
	}
	return out
}

// leaves calls fn for every error in the tree that has no causes: the
// specific problems, not the "doesn't validate against" summaries above them.
func leaves(e *jsonschema.ValidationError, fn func(*jsonschema.ValidationError)) {
	if len(e.Causes) == 0 {
		fn(e)
		return
	}
	for _, c := range e.Causes {
		leaves(c, fn)
	}
}

// checkKeys scans args token by token and reports duplicate object keys
// and keys that differ from a declared property only in case. It reports
// fatal when the document cannot be validated at all: not JSON, not an
// object, or nested too deep.
func (v *validator) checkKeys(args []byte) (out []Violation, fatal bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return []Violation{{Message: "arguments are not valid JSON: " + err.Error()}}, true
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return []Violation{{Message: "arguments must be a JSON object"}}, true
	}
	if err := v.scanObject(dec, "", "", 1, &out); err != nil {
		return []Violation{{Message: "arguments are not valid JSON: " + err.Error()}}, true
	}
	if _, err := dec.Token(); err != io.EOF {
		return []Violation{{Message: "arguments are followed by extra data"}}, true
	}
	return out, false
}

// scanObject reads the members of an object whose '{' has been read. at is
// the object's JSON pointer and pattern the same with indexes as "*".
func (v *validator) scanObject(dec *json.Decoder, at, pattern string, depth int, out *[]Violation) error {
	seen := make(map[string]bool)
	declared := v.properties[pattern]
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		here := at + "/" + escapePointer(key)
		switch {
		case seen[key]:
			*out = append(*out, Violation{Pointer: here, Message: fmt.Sprintf("duplicate key %q", key)})
		case declared != nil:
			if exact, ok := declared[strings.ToLower(key)]; ok && exact != key {
				*out = append(*out, Violation{Pointer: here, Message: fmt.Sprintf("unknown key %q: keys are case-sensitive; did you mean %q?", key, exact)})
			}
		}
		seen[key] = true
		if err := v.scanValue(dec, here, pattern+"/"+escapePointer(key), depth, out); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

func (v *validator) scanValue(dec *json.Decoder, at, pattern string, depth int, out *[]Violation) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxArgumentDepth {
		return fmt.Errorf("nested deeper than %d levels", maxArgumentDepth)
	}
	if d == '{' {
		return v.scanObject(dec, at, pattern, depth+1, out)
	}
	for i := 0; dec.More(); i++ {
		if err := v.scanValue(dec, at+"/"+strconv.Itoa(i), pattern+"/*", depth+1, out); err != nil {
			return err
		}
	}
	_, err = dec.Token() // ']'
	return err
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// violationsError turns violations into the one invalid_input error a model
// can fix all of them from.
func violationsError(vs []Violation) *Error {
	var b strings.Builder
	if len(vs) == 1 {
		b.WriteString("1 problem with the arguments:")
	} else {
		fmt.Fprintf(&b, "%d problems with the arguments:", len(vs))
	}
	for _, v := range vs {
		p := v.Pointer
		if p == "" {
			p = "(root)"
		}
		fmt.Fprintf(&b, "\n- %s: %s", p, v.Message)
	}
	return &Error{
		Class:   InvalidInput,
		Message: b.String(),
		Hint:    "fix every problem listed, then call again",
		Details: vs,
	}
}
