package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/repo-mcp/repo-mcp/internal/jsonschema"
	"github.com/repo-mcp/repo-mcp/internal/jsonschema/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// MaxViolations bounds how many problems one check reports; a last
// violation says that more were not shown.
const MaxViolations = 50

// A Violation is one problem with a call's arguments.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is
	// the arguments object itself.
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func (v Violation) String() string {
	if v.Pointer == "" {
		return v.Message
	}
	return v.Pointer + ": " + v.Message
}

// A Schema is a compiled input schema.
type Schema struct {
	schema *jsonschema.Schema
	// properties maps the case-folded name of every property, at every
	// object nesting the schema declares, to its exact name, so that
	// "Path" is reported as a case variant of "path".
	properties map[string]map[string]string
	// mixedCase is set when a declared property's name is not lower-case
	// ASCII (see keys).
	mixedCase bool
	// flat accepts the usual valid arguments without the general
	// validator; nil when the schema is not of its shape (flat.go).
	flat *flatObject
}

// refuseLoader refuses every external schema: tool schemas are inline.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema loading is disabled (%s)", url)
}

// Compile compiles a JSON Schema (draft 2020-12 unless it says otherwise)
// given as JSON. name identifies it in error messages.
func Compile(name string, schema []byte) (*Schema, error) {
	return compile(name, schema, false)
}

// CompileTrusted is Compile for a program's own schemas, which its tests
// compile with Compile: it does not check the schema against the draft's
// meta-schema, whose compile was a tenth of a new server's work before its
// first answer. Schemas from elsewhere (another server's tools) go through
// Compile.
func CompileTrusted(name string, schema []byte) (*Schema, error) {
	return compile(name, schema, true)
}

func compile(name string, schema []byte, trusted bool) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	if trusted {
		c.TrustSchemas()
	}
	c.UseLoader(refuseLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + name + ".input.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s := &Schema{schema: compiled, properties: make(map[string]map[string]string), flat: compileFlat(doc)}
	if m, ok := doc.(map[string]any); ok {
		s.collectProperties("", m)
	}
	return s, nil
}

// collectProperties records the property names of every object schema
// reachable through "properties" and "items", keyed by a pointer pattern
// in which array indexes are "*".
func (s *Schema) collectProperties(at string, schema map[string]any) {
	if props, ok := schema["properties"].(map[string]any); ok {
		names := make(map[string]string, len(props))
		for name, sub := range props {
			names[strings.ToLower(name)] = name
			s.mixedCase = s.mixedCase || !lowerASCII([]byte(name))
			if m, ok := sub.(map[string]any); ok {
				s.collectProperties(at+"/"+EscapeToken(name), m)
			}
		}
		s.properties[at] = names
	}
	if items, ok := schema["items"].(map[string]any); ok {
		s.collectProperties(at+"/*", items)
	}
}

// Parse decodes arguments into the form Check validates, numbers kept
// exact. A caller that needs the decoded arguments itself (the server reads
// request_id from them) parses once and hands the result to Check.
func Parse(args []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(args))
}

// Check returns every problem with args, or nil. inst and parseErr are what
// Parse returned for args. Problems with the keys (duplicates, case variants
// of declared properties) come first and the schema's follow, sorted by
// pointer, so that one answer lists everything to fix.
func (s *Schema) Check(args []byte, inst any, parseErr error) []Violation {
	out, fatal := s.keys(args)
	if fatal {
		return out
	}
	if parseErr != nil {
		return append(out, Violation{Message: "arguments are not valid JSON: " + parseErr.Error()})
	}
	if s.flat != nil && s.flat.accepts(inst) {
		return out
	}
	err := s.schema.Validate(inst)
	if err == nil {
		return out
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return append(out, Violation{Message: err.Error()})
	}
	p := message.NewPrinter(language.English)
	leaves(ve, func(e *jsonschema.ValidationError) {
		if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			// They come in the order of a map's iteration.
			k.Properties = slices.Sorted(slices.Values(k.Properties))
		}
		out = append(out, Violation{
			Pointer: Pointer(e.InstanceLocation),
			Message: e.ErrorKind.LocalizedString(p),
		})
	})
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Pointer, b.Pointer) })
	out = slices.Compact(out)
	if len(out) > MaxViolations {
		out = append(out[:MaxViolations], Violation{Message: "more problems not shown"})
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

// Pointer joins reference tokens into a JSON pointer.
func Pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}

// EscapeToken escapes one reference token of a JSON pointer.
func EscapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
