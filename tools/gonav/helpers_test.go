package gonav

import (
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"os"
	"strconv"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

func TestMain(m *testing.M) {
	verify.RunHelper() // go list's sandbox runs this test binary as its helper
	os.Exit(m.Run())
}

// txtarFiles reads a txtar fixture as the files of a commit.
func txtarFiles(t testing.TB, name string) map[string]gitfixture.File {
	t.Helper()
	ar, err := txtar.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]gitfixture.File{}
	for _, f := range ar.Files {
		files[f.Name] = gitfixture.Text(string(f.Data))
	}
	return files
}

// testOptions are the service's options in tests: the real sandbox,
// which needs root to switch uid; without it, the uid property is let go
// (the test says so), as an operator would.
func testOptions(t testing.TB) Options {
	opts := Options{CacheDir: t.TempDir(), Verify: verify.Options{SelfHelper: true}}
	if os.Getuid() != 0 {
		t.Log("not root: go list runs in the sandbox without the uid property")
		opts.Verify.Unconfined = []verify.Property{verify.UID}
	}
	if os.Getenv("REPO_MCP_TEST_LOG") != "" {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return opts
}

// serve serves the repository at dir as workspace "w" to identity "op"
// with go_navigate registered, through the real protocol path.
func serve(t testing.TB, dir string, opts Options, allow ...string) (*servertest.Client, *Service) {
	t.Helper()
	if allow == nil {
		allow = []string{"**"}
	}
	reg, err := workspace.Open(workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "w", Root: dir}},
		Policies: []workspace.PolicyConfig{
			{Identity: "op", Workspaces: []string{"*"}, Actions: []workspace.Action{workspace.ActionSearch}, Allow: allow},
		},
	}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	sv, err := New(reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sv.Close() })
	s := server.New(server.Info{Name: "t"}, server.Options{
		Caller: "op", Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Audit: io.Discard,
		Authorize: toolkit.Authorizer(reg),
	})
	if err := sv.register(s); err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, s), sv
}

// navigate calls go_navigate and decodes its result; a tool error fails
// the test.
func navigate(t testing.TB, c *servertest.Client, args map[string]any) GoNavigateOut {
	t.Helper()
	res := navigateRaw(t, c, args)
	if res.IsError {
		t.Fatalf("go_navigate %v: %s", args, res.Text)
	}
	var out GoNavigateOut
	if err := json.Unmarshal(res.Structured, &out); err != nil {
		t.Fatalf("decoding %s: %v", res.Structured, err)
	}
	return out
}

func navigateRaw(t testing.TB, c *servertest.Client, args map[string]any) *servertest.Result {
	t.Helper()
	if _, ok := args["workspace_id"]; !ok {
		args["workspace_id"] = "w"
	}
	return c.Call("go_navigate", args)
}

func itoa(n int) string { return strconv.Itoa(n) }

// navigateAll follows a query's cursor to its last page and returns
// every result.
func navigateAll(t testing.TB, c *servertest.Client, args map[string]any) GoNavigateOut {
	t.Helper()
	out := navigate(t, c, args)
	for cursor := out.NextCursor; cursor != ""; {
		next := maps.Clone(args)
		next["cursor"] = cursor
		page := navigate(t, c, next)
		out.Results = append(out.Results, page.Results...)
		cursor = page.NextCursor
	}
	if len(out.Results) != out.Total {
		t.Errorf("%v: %d results in all pages, total says %d", args, len(out.Results), out.Total)
	}
	return out
}

// mustIndex returns a unit's index, producing it.
func mustIndex(t testing.TB, u *unit) *unitIndex {
	t.Helper()
	ix, err := u.indexOf(t.Context())
	if err != nil {
		t.Fatalf("the index of %s: %v", u.id, err)
	}
	return ix
}
