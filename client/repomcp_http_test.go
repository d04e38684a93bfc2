package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// repoMCPHTTP serves a fresh git repository with the real repo-mcp binary
// over Streamable HTTP, to alice only, and returns the URL and alice's
// token (made by repo-mcp token).
func repoMCPHTTP(t *testing.T) (url, token string) {
	t.Helper()
	bin := build(t, "github.com/repo-mcp/repo-mcp/cmd/repo-mcp")
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md":   gitfixture.Text("# Fixture\nserved over HTTP\n"),
		"src/main.go": gitfixture.Text("package main\n"),
	})
	out, err := exec.Command(bin, "token", "alice").Output()
	if err != nil {
		t.Fatalf("repo-mcp token alice: %v", err)
	}
	m := regexp.MustCompile(`(?s)^(rmcp_\S+)\n.*\ntokens:\n((?:  .*\n)+)$`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("repo-mcp token alice printed:\n%s", out)
	}
	config := filepath.Join(t.TempDir(), "config.yaml")
	yaml := fmt.Sprintf("workspaces:\n  - id: fx\n    root: %q\npolicies:\n  - identity: alice\n    workspaces: [fx]\n    actions: [read]\ntokens:\n%s", repo.Dir, m[2])
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	url = peers.StartHTTP(t, bin, "serve", "--http", "127.0.0.1:0", "--index-cache", "off", "--config", config)
	return url, m[1]
}

func TestHTTPRepoMCP(t *testing.T) {
	url, token := repoMCPHTTP(t)
	ctx := context.Background()
	for _, era := range []client.Era{client.EraAuto, client.EraLegacy} {
		t.Run(fmt.Sprint("era", era), func(t *testing.T) {
			leaked := goroutineCheck(t)
			c, err := client.Dial(ctx, client.Endpoint{URL: url, Header: http.Header{"Authorization": {"Bearer " + token}}}, client.Options{Era: era})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := c.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				leaked()
			}()
			if s := c.Server(); s.Implementation.Name != "repo-mcp" || s.Modern != (era == client.EraAuto) {
				t.Errorf("Server() = %+v", s)
			}
			res, err := c.Call(ctx, "list_files", map[string]any{"workspace_id": "fx", "recursive": true})
			if err != nil || res.IsError || !strings.Contains(res.Text(), "src/main.go") {
				t.Fatalf("list_files = %+v, %v", res, err)
			}
			res, err = c.Call(ctx, "read_file", map[string]any{"workspace_id": "fx", "path": "README.md"})
			if err != nil || res.IsError || !strings.Contains(res.Text(), "served over HTTP") {
				t.Fatalf("read_file = %+v, %v", res, err)
			}
		})
	}
	t.Run("wrong token", func(t *testing.T) {
		_, err := client.Dial(ctx, client.Endpoint{URL: url, Header: http.Header{"Authorization": {"Bearer rmcp_wrong"}}}, client.Options{})
		if !errors.Is(err, client.ErrCredentials) || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "rmcp_wrong") {
			t.Fatalf("Dial with a wrong token = %v; want the credentials refused (401), the token not repeated", err)
		}
		t.Log(err)
	})
}
