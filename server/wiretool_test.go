package server

import (
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
		r := &registered{def: Tool{Name: "t", Description: "d", Effect: ReadOnly}, input: tc.input, output: output}
		reg, listed := r.wireTools()
		if !cmp.Equal(listed.InputSchema, any(tc.input)) || !cmp.Equal(listed.OutputSchema, any(output)) {
			t.Errorf("%s: listed tool has schemas %v, %v; want the real ones", tc.name, listed.InputSchema, listed.OutputSchema)
		}
		standIn := map[string]any{"type": "object"}
		if got := cmp.Equal(reg.InputSchema, any(standIn)) && reg.OutputSchema == nil; got != tc.standsIn {
			t.Errorf("%s: go-sdk holds the stand-in: %v, want %v (input %v, output %v)", tc.name, got, tc.standsIn, reg.InputSchema, reg.OutputSchema)
		}
		if !tc.standsIn && !cmp.Equal(reg.InputSchema, any(tc.input)) {
			t.Errorf("%s: go-sdk holds input schema %v; want the real one", tc.name, reg.InputSchema)
		}
	}
}
