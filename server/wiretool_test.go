package server

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWireToolsStandIn: go-sdk holds a stand-in input schema (and no output
// schema) unless the real one has an x-mcp-header annotation, at any
// depth, which go-sdk reads to route arguments to HTTP headers; the listed
// tool always has the real schemas. (tools/list's bytes are pinned by the
// wire transcripts of TestWire, which fail when the listing keeps the
// stand-ins.)
func TestWireToolsStandIn(t *testing.T) {
	header := map[string]any{"type": "string", "x-mcp-header": "Repo"}
	for _, tc := range []struct {
		name     string
		input    map[string]any
		standsIn bool
	}{
		{"plain", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}, true},
		{"header", map[string]any{"type": "object", "properties": map[string]any{"repo": header}}, false},
		{"nested header", map[string]any{"type": "object", "properties": map[string]any{
			"opts": map[string]any{"type": "object", "properties": map[string]any{"repo": header}},
		}}, false},
		{"header in a list", map[string]any{"type": "object", "anyOf": []any{map[string]any{"properties": map[string]any{"repo": header}}}}, false},
	} {
		output := map[string]any{"type": "object", "properties": map[string]any{}}
		// A schema reflected at Register, and one generated ahead of
		// time, whose JSON is looked into without decoding it.
		for form, doc := range map[string]func(map[string]any) *schemaDoc{"reflected": mapDoc, "generated": generatedDoc(t)} {
			r := &registered{def: Tool{Name: "t", Description: "d", Effect: ReadOnly}, input: doc(tc.input), output: doc(output)}
			reg, listed := r.wireTools()
			if !cmp.Equal(decoded(t, listed.InputSchema), tc.input) || !cmp.Equal(decoded(t, listed.OutputSchema), output) {
				t.Errorf("%s, %s: listed tool has schemas %s, %s; want the real ones", tc.name, form, listed.InputSchema, listed.OutputSchema)
			}
			standIn := map[string]any{"type": "object"}
			if got := cmp.Equal(reg.InputSchema, any(standIn)) && reg.OutputSchema == nil; got != tc.standsIn {
				t.Errorf("%s, %s: go-sdk holds the stand-in: %v, want %v (input %v, output %v)", tc.name, form, got, tc.standsIn, reg.InputSchema, reg.OutputSchema)
			}
			if !tc.standsIn && !cmp.Equal(decoded(t, reg.InputSchema), tc.input) {
				t.Errorf("%s, %s: go-sdk holds input schema %v; want the real one", tc.name, form, reg.InputSchema)
			}
		}
	}
}

// generatedDoc returns a function making a schema as Options.Schemas
// gives it: JSON.
func generatedDoc(t *testing.T) func(map[string]any) *schemaDoc {
	return func(m map[string]any) *schemaDoc {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return jsonDoc(string(data))
	}
}

// decoded returns v, a schema as go-sdk holds it, as a client decodes it.
func decoded(t *testing.T, v any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
