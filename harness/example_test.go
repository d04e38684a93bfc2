package harness_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/model"
)

// The seed's task over the harness's own local source, with the scripted
// offline model. An MCP server is one more entry under servers: in the
// configuration; nothing else changes.
func Example() {
	ws, _ := os.MkdirTemp("", "workspace")
	state, _ := os.MkdirTemp("", "state")
	defer os.RemoveAll(ws)
	defer os.RemoveAll(state)
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Example\n\nThe harness reads this file. It keeps every decision. It answers from the file. This sentence is left out.\n"), 0o644)

	cfg, err := config.Parse([]byte(`
state_dir: `+state+`
local:
  workspace: `+ws+`
  tools:
    list_files: {effect: read_only}
    read_file: {effect: read_only}
`), ws)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	h, err := harness.New(ctx, harness.Options{Config: cfg, Model: model.NewScripted(model.DemoPlan(nil))})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	run, err := h.Submit(ctx, model.DemoTask)
	if err != nil {
		log.Fatal(err)
	}
	st, err := h.Wait(ctx, run)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range st.Calls {
		fmt.Println(c.Source+"."+c.Tool, c.Arguments, c.State)
	}
	fmt.Println(st.State+":", st.Answer)
	// Output:
	// local.list_files {} succeeded
	// local.read_file {"path":"README.md"} succeeded
	// completed: The harness reads this file. It keeps every decision. It answers from the file.
}
