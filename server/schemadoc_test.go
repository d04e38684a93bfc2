package server_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

// TestGeneratedSchemas: a server given the schemas another one generated
// registers its tools with them, lists them and validates calls against
// them as if it had derived them; an entry whose Types no longer match the
// tool's types is passed over, and the schemas derived again.
func TestGeneratedSchemas(t *testing.T) {
	reflected := newTestServer(server.Options{})
	gen, err := reflected.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(reflected.Tools(), newTestServer(server.Options{Schemas: gen}).Tools()); diff != "" {
		t.Errorf("tools with generated schemas differ from reflected ones (-reflected +generated):\n%s", diff)
	}

	// An echo whose text may be at most 3 characters: a call the
	// reflected schema accepts is refused, so the generated one is used.
	short := maps.Clone(gen)
	e := short["echo"]
	var in map[string]any
	if err := json.Unmarshal([]byte(e.Input), &in); err != nil {
		t.Fatal(err)
	}
	in["properties"].(map[string]any)["text"].(map[string]any)["maxLength"] = 3
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	e.Input = string(data)
	short["echo"] = e
	if res := servertest.Start(t, newTestServer(server.Options{Schemas: short})).Call("echo", map[string]any{"text": "four"}); res.ErrorClass() != "invalid_input" {
		t.Errorf("echo of 4 characters under a generated maxLength of 3: %s %q; want invalid_input", res.ErrorClass(), res.Text)
	}

	e.Types = "stale"
	short["echo"] = e
	if res := servertest.Start(t, newTestServer(server.Options{Schemas: short})).Call("echo", map[string]any{"text": "four"}); res.IsError {
		t.Errorf("echo with a stale generated schema: %s %q; want the reflected schema, which accepts it", res.ErrorClass(), res.Text)
	}
}
