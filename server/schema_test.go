package server_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/repo-mcp/repo-mcp/server"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

func TestSchemasGolden(t *testing.T) {
	s := newTestServer(server.Options{})
	for _, tool := range s.Tools() {
		for kind, schema := range map[string]map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			data, err := json.MarshalIndent(schema, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "schema/"+tool.Name+"."+kind+".json", append(data, '\n'))
		}
	}
}

func TestSchemaShape(t *testing.T) {
	s := newTestServer(server.Options{})
	for _, tool := range s.Tools() {
		for kind, schema := range map[string]map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			data, _ := json.Marshal(schema)
			var m map[string]any
			json.Unmarshal(data, &m)
			for _, banned := range []string{"$ref", "$defs", "$schema", "$id"} {
				if _, ok := m[banned]; ok {
					t.Errorf("%s %s schema has %s", tool.Name, kind, banned)
				}
			}
			if m["type"] != "object" || m["additionalProperties"] != false {
				t.Errorf("%s %s schema: type %v, additionalProperties %v; want a closed object", tool.Name, kind, m["type"], m["additionalProperties"])
			}
		}
	}
}

// DocIn is documented by comments rather than tags.
type DocIn struct {
	Path string `json:"path"`
	Tag  string `json:"tag,omitempty" jsonschema:"description=From the tag."`
}

func TestDescriptionsFromComments(t *testing.T) {
	s := server.New(server.Info{Name: "x"}, server.Options{})
	const pkg = "github.com/repo-mcp/repo-mcp/server_test"
	server.MustRegister(s, server.Tool{Name: "doc", Description: "d", Effect: server.ReadOnly, Comments: map[string]string{
		pkg + ".DocIn":      "DocIn is documented by comments rather than tags.",
		pkg + ".DocIn.Path": "Path is the file to read.",
		pkg + ".DocIn.Tag":  "The tag wins over this.",
	}}, noop[DocIn, empty])
	in := s.Tools()[0].InputSchema
	props := in["properties"].(map[string]any)
	if got := props["path"].(map[string]any)["description"]; got != "Path is the file to read." {
		t.Errorf("path description = %v", got)
	}
	if got := props["tag"].(map[string]any)["description"]; got != "From the tag." {
		t.Errorf("tag description = %v, want the tag's", got)
	}
	if got := in["description"]; got != "DocIn is documented by comments rather than tags." {
		t.Errorf("schema description = %v", got)
	}
}

// goSDKTags mixes go-sdk's tag form (all description) with invopop's.
type goSDKTags struct {
	Plain     string `json:"plain" jsonschema:"The file to read, relative to the root."`
	Invopop   int    `json:"invopop" jsonschema:"description=A count\\, at least one.,minimum=1"`
	Required  string `json:"required,omitempty" jsonschema:"required"`
	Commented string `json:"commented,omitempty" jsonschema:"From the tag, not the comment."`
	Untagged  string `json:"untagged,omitempty"`
}

func TestTagDescriptions(t *testing.T) {
	s := server.New(server.Info{Name: "t"}, server.Options{})
	comments := map[string]string{
		"github.com/repo-mcp/repo-mcp/server_test.goSDKTags.Commented": "From the comment.",
		"github.com/repo-mcp/repo-mcp/server_test.goSDKTags.Untagged":  "Only a comment.",
	}
	if err := server.Register(s, server.Tool{Name: "t", Description: "d", Effect: server.ReadOnly, Comments: comments}, noop[goSDKTags, empty]); err != nil {
		t.Fatal(err)
	}
	props := s.Tools()[0].InputSchema["properties"].(map[string]any)
	tests := []struct{ property, want string }{
		{"plain", "The file to read, relative to the root."},
		{"invopop", "A count, at least one."},
		{"required", ""},
		{"commented", "From the tag, not the comment."},
		{"untagged", "Only a comment."},
	}
	for _, tt := range tests {
		got, _ := props[tt.property].(map[string]any)["description"].(string)
		if got != tt.want {
			t.Errorf("%s: description %q, want %q", tt.property, got, tt.want)
		}
	}
	if min := props["invopop"].(map[string]any)["minimum"]; min != json.Number("1") && min != 1.0 {
		t.Errorf("invopop: minimum %v, want 1", min)
	}
	if req, _ := s.Tools()[0].InputSchema["required"].([]any); !slices.Contains(req, any("required")) {
		t.Errorf("required %v: the bare keyword was lost", req)
	}
}
