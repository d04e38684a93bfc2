package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/peers"
	"github.com/repo-mcp/repo-mcp/internal/testbin"
)

var bins = testbin.New()

func TestMain(m *testing.M) {
	if answer := os.Getenv(engineAnswerEnv); answer != "" {
		if err := serveEngine(answer); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := bins.Run(m)
	if benchRepo.temp != "" {
		os.RemoveAll(benchRepo.temp)
	}
	os.Exit(code)
}

// repoMCP returns the path of the repo-mcp binary, built once.
func repoMCP(t testing.TB) string { return bins.Build(t, ".") }

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"version"}, 0, "repo-mcp ", ""},
		{[]string{"tools"}, 0, "NAME", ""},
		{[]string{"schemas", "--check", "--dir", "../../schemas", "--go", "schemas_gen.go"}, 0, "", ""},
		{nil, 2, "", "usage:"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"serve", "--workspace", "nopath"}, 2, "", "want ID=PATH"},
		{[]string{"serve", "--http", "0.0.0.0:0"}, 2, "", "not a loopback address"},
		{[]string{"serve", "--http", "0.0.0.0:0", "--allow-remote"}, 2, "", "--allow-remote needs tokens"},
		{[]string{"serve", "--state-key-file", "/dev/null"}, 2, "", "want 32 or more"},
		{[]string{"token"}, 2, "", "usage: repo-mcp token IDENTITY"},
		{[]string{"token", "*"}, 2, "", "usage: repo-mcp token IDENTITY"},
		{[]string{"token", "a\nb"}, 2, "", "cannot call"},
		{[]string{"token", "alice"}, 0, "rmcp_", ""},
		{[]string{"serve", "extra"}, 2, "", "unexpected argument"},
		// Help is asked for, so it is no error; each command has its line.
		{[]string{"help"}, 0, "  prune    delete the patch proposals never applied", ""},
		{[]string{"--help"}, 0, "  serve    serve the workspaces over MCP", ""},
		{[]string{"serve", "--help"}, 0, "Serve the workspaces over MCP", ""},
		{[]string{"serve", "-h"}, 0, "-workspace value", ""},
		{[]string{"tools", "-h"}, 0, "usage: repo-mcp tools\n", ""},
		{[]string{"schemas", "--help"}, 0, "-check", ""},
		{[]string{"token", "--help"}, 0, "usage: repo-mcp token IDENTITY", ""},
		{[]string{"serve", "--bogus"}, 2, "", "(repo-mcp serve -h says more)"},
		// A server with nothing to serve refuses to start, and says why.
		{[]string{"serve"}, 2, "", "no workspace to serve: give --workspace ID=PATH"},
		{[]string{"serve", "--workspace", "app=/no/such/repo"}, 2, "", `workspace "app": root /no/such/repo: file does not exist`},
		// Outside a checkout there is nothing to call stale.
		{[]string{"schemas", "--check", "--dir", "/no/such/schemas"}, 2, "", "there is no directory /no/such/schemas here"},
		{[]string{"schemas", "--check", "--dir", "testdata"}, 2, "", "testdata holds none of the tools' schema files"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := exec.Command(repoMCP(t), tt.args...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr: %s)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stdout %q, stderr %q; want them to contain %q and %q", stdout.String(), stderr.String(), tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

// TestToolDefinitions checks what every host relies on: each tool has a
// description and explicit annotations.
func TestToolDefinitions(t *testing.T) {
	s, err := allTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range s.Tools() {
		if tool.Description == "" || tool.Effect == "" {
			t.Errorf("%s: description %q, effect %q", tool.Name, tool.Description, tool.Effect)
		}
	}
}

// fixtureRepo is a small repository for the peers to read; it returns its
// root and HEAD.
func fixtureRepo(t testing.TB) (string, string) {
	repo := gitfixture.New(t)
	head := repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md":   gitfixture.Text("# Fixture\nread by peers\n"),
		"go.mod":      gitfixture.Text("module example.com/fx\n"),
		"src/main.go": gitfixture.Text("package main\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n"),
		".env":        gitfixture.Text("SECRET=1\n"),
	})
	return repo.Dir, head
}

// TestGoSDKClient calls every tool of the binary with the official go-sdk
// client, in each protocol era.
func TestGoSDKClient(t *testing.T) {
	root, head := fixtureRepo(t)
	for _, tt := range []struct{ ask, want string }{
		{"", "2026-07-28"},
		{"2025-11-25", "2025-11-25"},
		{"2025-03-26", "2025-03-26"},
	} {
		t.Run("version "+tt.want, func(t *testing.T) {
			ctx := context.Background()
			client := mcp.NewClient(&mcp.Implementation{Name: "peer-test", Version: "0"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(repoMCP(t), "serve", "--index-cache", "off", "--workspace", "fx="+root)},
				&mcp.ClientSessionOptions{ProtocolVersion: tt.ask})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			init := cs.InitializeResult()
			if init.ProtocolVersion != tt.want || init.ServerInfo.Name != "repo-mcp" || init.Capabilities.Tools == nil {
				t.Errorf("initialize result: version %s, server %+v, capabilities %+v", init.ProtocolVersion, init.ServerInfo, init.Capabilities)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 12 {
				t.Fatalf("list tools: %v, %d tools", err, len(tools.Tools))
			}
			for _, tool := range tools.Tools {
				a := tool.Annotations
				if tool.Description == "" || a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil || tool.OutputSchema == nil {
					t.Errorf("%s: description, explicit annotations and output schema are required: %+v", tool.Name, a)
				}
			}
			for _, call := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"repo_info", map[string]any{"workspace_id": "fx"}, head},
				{"list_files", map[string]any{"workspace_id": "fx", "recursive": true}, "src/main.go"},
				{"read_file", map[string]any{"workspace_id": "fx", "path": "README.md"}, "read by peers"},
				{"read_file", map[string]any{"workspace_id": "fx", "path": ".env"}, "permission_denied: "},
				{"search_symbol", map[string]any{"workspace_id": "fx", "query": "Greet"}, "src/main.go:4:6 func main.Greet"},
				{"search_text", map[string]any{"workspace_id": "fx", "pattern": "greet", "case": "smart"}, "src/main.go:4:6:func Greet"},
				{"history", map[string]any{"workspace_id": "fx", "path": "src"}, "commit " + head},
				{"diff", map[string]any{"workspace_id": "fx", "commit": "HEAD", "detail": "patch"}, "+++ b/src/main.go"},
				{"go_navigate", map[string]any{"workspace_id": "fx", "relation": "definition", "symbol": "Greet"}, "src/main.go:4:6 func example.com/fx/src.Greet"},
			} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
				if err != nil {
					t.Fatalf("%s: %v", call.tool, err)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if !strings.Contains(text, call.want) || strings.Contains(text, root) {
					t.Errorf("%s %v: %s", call.tool, call.args, text)
				}
			}
		})
	}
}

// TestConformance runs the official conformance suite against repo-mcp
// serve --http. The baselines list only fixture scenarios, for features
// repo-mcp does not offer, each with its reason.
func TestConformance(t *testing.T) {
	peers.Node(t)
	root, _ := fixtureRepo(t)
	url := peers.StartHTTP(t, repoMCP(t), "serve", "--http", "127.0.0.1:0", "--index-cache", "off", "--workspace", "fx="+root)
	t.Run("active", func(t *testing.T) {
		peers.Conformance(t, url, "testdata/conformance-active.yml")
	})
	t.Run("2026-07-28", func(t *testing.T) {
		peers.Conformance(t, url, "testdata/conformance-2026-07-28.yml", "--requirements", "2026-07-28")
	})
}

// TestInspector lists and calls the tools with the TypeScript SDK's client
// (the inspector CLI), in both eras.
func TestInspector(t *testing.T) {
	root, head := fixtureRepo(t)
	server := []string{repoMCP(t), "serve", "--index-cache", "off", "--workspace", "fx=" + root}
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			ctx := context.Background()
			out := peers.Inspector(ctx, t, server, "--protocol-era", era, "--method", "tools/list")
			var list struct {
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &list); err != nil || len(list.Result.Tools) != 12 {
				t.Fatalf("tools/list: %v: %s", err, out)
			}
			for _, call := range []struct {
				tool string
				args []string
				want string
			}{
				{"repo_info", []string{"workspace_id=fx"}, head},
				{"list_files", []string{"workspace_id=fx", "path=src"}, "src/main.go"},
				{"read_file", []string{"workspace_id=fx", "path=README.md", "start_line=2"}, "read by peers"},
				{"search_symbol", []string{"workspace_id=fx", "query=greet"}, "Greet says hello"},
				{"search_text", []string{"workspace_id=fx", "pattern=Greet says"}, "src/main.go:3:"},
				{"history", []string{"workspace_id=fx", "mode=blame", "path=README.md"}, "blame of README.md"},
			} {
				args := append([]string{"--protocol-era", era, "--method", "tools/call", "--tool-name", call.tool, "--tool-arg"}, call.args...)
				out := peers.Inspector(ctx, t, server, args...)
				if !strings.Contains(string(out), call.want) {
					t.Errorf("%s: %s", call.tool, out)
				}
			}
		})
	}
}
