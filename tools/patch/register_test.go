package patch_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch"
)

// TestToolDefinitions checks what hosts see: the four tools, their effect
// classes, and closed input schemas.
func TestToolDefinitions(t *testing.T) {
	s := server.New(server.Info{Name: "t"}, server.Options{})
	if err := patch.Register(s, nil, patch.Options{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]server.Effect{
		"generate_patch": server.Write, "preview_diff": server.ReadOnly,
		"apply_patch": server.Destructive, "verify_patch": server.Write,
	}
	for _, tool := range s.Tools() {
		effect, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		delete(want, tool.Name)
		if tool.Effect != effect || tool.Description == "" {
			t.Errorf("%s: effect %s, description %q", tool.Name, tool.Effect, tool.Description)
		}
		if tool.InputSchema["additionalProperties"] != false {
			t.Errorf("%s: input schema is not closed", tool.Name)
		}
		if os.Getenv("PATCH_PRINT_SCHEMAS") != "" {
			data, _ := json.MarshalIndent(tool.InputSchema, "", "  ")
			t.Logf("%s input:\n%s", tool.Name, data)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing tools: %v", want)
	}
}
