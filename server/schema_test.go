package server_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
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
