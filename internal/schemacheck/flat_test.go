package schemacheck

import (
	"os"
	"path/filepath"
	"testing"
)

// flatSchema has every keyword the flat check knows, and one property
// ("list") it does not.
const flatSchema = `{
	"type": "object",
	"description": "What a tool takes.",
	"additionalProperties": false,
	"required": ["workspace_id", "path"],
	"properties": {
		"workspace_id": {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-z0-9][a-z0-9._-]*$", "description": "d"},
		"path": {"type": "string", "minLength": 1, "maxLength": 4},
		"encoding": {"type": "string", "enum": ["text", "base64"]},
		"start_line": {"type": "integer", "minimum": 1, "maximum": 2147483647},
		"offset": {"type": "integer", "minimum": 0},
		"all": {"type": "boolean"},
		"list": {"type": "array", "items": {"type": "string"}}
	}
}`

// flatCases are arguments for flatSchema; fast marks those the flat check
// must accept by itself, so that a check that never accepts fails too.
var flatCases = []struct {
	args string
	fast bool
}{
	{`{"workspace_id": "go", "path": "a.go"}`, true},
	{`{"workspace_id": "go", "path": "a.go", "encoding": "base64", "start_line": 7, "offset": 0, "all": true}`, true},
	{`{"workspace_id": "go", "path": "äöüß"}`, true}, // four code points, eight bytes
	{`{"workspace_id": "go", "path": "a", "start_line": 2147483647}`, true},
	{`{"workspace_id": "go", "path": "a", "start_line": -0, "offset": 0}`, false},
	{`{"workspace_id": "go", "path": "a", "start_line": 1.0}`, false}, // an integer to the schema, left to the validator
	{`{"workspace_id": "go", "path": "a", "start_line": 1e2}`, false},
	{`{"workspace_id": "go", "path": "a", "start_line": 2147483648}`, false},
	{`{"workspace_id": "go", "path": "a", "start_line": 0}`, false},
	{`{"workspace_id": "go", "path": "a", "start_line": 1.5}`, false},
	{`{"workspace_id": "go", "path": "a", "start_line": "1"}`, false},
	{`{"workspace_id": "go", "path": "a", "offset": -1}`, false},
	{`{"workspace_id": "go", "path": "a", "offset": 99999999999999999999}`, false},
	{`{"workspace_id": "go", "path": "a", "encoding": "utf8"}`, false},
	{`{"workspace_id": "go", "path": "a", "all": "true"}`, false},
	{`{"workspace_id": "go", "path": "a", "all": null}`, false},
	{`{"workspace_id": "go", "path": ""}`, false},
	{`{"workspace_id": "go", "path": "abcde"}`, false},
	{`{"workspace_id": "Go", "path": "a"}`, false},
	{`{"workspace_id": "go-and-more", "path": "a"}`, false},
	{`{"workspace_id": "go"}`, false},
	{`{"path": "a"}`, false},
	{`{"workspace_id": "go", "path": "a", "other": 1}`, false},
	{`{"workspace_id": "go", "path": "a", "list": ["x"]}`, false}, // valid, but not the flat check's to say
	{`{"workspace_id": "go", "path": "a", "list": [1]}`, false},
	{`{"workspace_id": 7, "path": "a"}`, false},
	{`["workspace_id"]`, false},
	{`"go"`, false},
}

// TestFlatAgrees checks the flat check against the general validator on
// the same arguments: it never accepts what the validator refuses, and it
// accepts the usual valid arguments itself.
func TestFlatAgrees(t *testing.T) {
	s, err := Compile("t", []byte(flatSchema))
	if err != nil {
		t.Fatal(err)
	}
	if s.flat == nil {
		t.Fatal("the flat check does not know the schema")
	}
	for _, tc := range flatCases {
		inst, err := Parse([]byte(tc.args))
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		fast, valid := s.flat.accepts(inst), s.schema.Validate(inst) == nil
		if fast && !valid {
			t.Errorf("%s: the flat check accepts what the validator refuses", tc.args)
		}
		if fast != tc.fast {
			t.Errorf("%s: the flat check accepts = %v, want %v (validator: valid = %v)", tc.args, fast, tc.fast, valid)
		}
	}
}

// FuzzFlatAgrees: whatever the arguments, the flat check accepts only
// what the general validator accepts.
func FuzzFlatAgrees(f *testing.F) {
	s, err := Compile("t", []byte(flatSchema))
	if err != nil {
		f.Fatal(err)
	}
	for _, tc := range flatCases {
		f.Add(tc.args)
	}
	f.Fuzz(func(t *testing.T, args string) {
		inst, err := Parse([]byte(args))
		if err != nil {
			return
		}
		if s.flat.accepts(inst) && s.schema.Validate(inst) != nil {
			t.Errorf("%s: the flat check accepts what the validator refuses", args)
		}
	})
}

// TestCompileFlat: a schema with a keyword the flat check does not know
// has no flat check, and a property with one is left to the validator.
func TestCompileFlat(t *testing.T) {
	for _, tc := range []struct {
		schema  string
		flat    bool
		unknown string // a property left to the validator
	}{
		{`{"type": "object", "properties": {"a": {"type": "string"}}}`, true, ""},
		{`{"type": "object", "$defs": {}, "properties": {"a": {"type": "string"}}}`, false, ""},
		{`{"type": "object", "additionalProperties": {"type": "string"}}`, false, ""},
		{`{"type": "object", "minProperties": 1}`, false, ""},
		{`{"type": "array"}`, false, ""},
		{`{"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}}`, true, "a"},
		{`{"type": "object", "properties": {"a": {"type": "integer", "exclusiveMinimum": 0}}}`, true, "a"},
		{`{"type": "object", "properties": {"a": {"type": "integer", "minimum": 0.5}}}`, true, "a"},
		{`{"type": "object", "properties": {"a": {"type": "number"}}}`, true, "a"},
		{`{"type": "object", "properties": {"a": {"type": ["string", "null"]}}}`, true, "a"},
		{`{"type": "object", "properties": {"a": {"type": "integer", "enum": [1, 2]}}}`, true, "a"},
		{`{"type": "object", "properties": {"a": {"type": "string", "minimum": 1}}}`, true, "a"},
	} {
		s, err := Compile("t", []byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		if (s.flat != nil) != tc.flat {
			t.Errorf("%s: flat = %v, want %v", tc.schema, s.flat != nil, tc.flat)
			continue
		}
		if tc.unknown != "" {
			if p, ok := s.flat.props[tc.unknown]; !ok || p != nil {
				t.Errorf("%s: property %q is not left to the validator", tc.schema, tc.unknown)
			}
		}
	}
}

// TestToolSchemasAreFlat: every tool's input schema (schemas/, generated)
// has a flat check, so that a change to how schemas are generated does not
// quietly send every call through the general validator.
func TestToolSchemasAreFlat(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "schemas", "*.input.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tool schemas: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(filepath.Base(file), data)
		if err != nil {
			t.Fatal(err)
		}
		if s.flat == nil {
			t.Errorf("%s has no flat check", file)
		}
	}
}
