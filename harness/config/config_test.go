package config

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`
local:
  workspace: ws
  tools:
    list_files: {effect: read_only}
    write_note:
servers:
  repo:
    command: [repo-mcp, serve]
    workspace: /srv/repo
    tools:
      read_file: {effect: read_only, paths: [path]}
      apply_patch: {}
`), "/etc/harness")
	if err != nil {
		t.Fatal(err)
	}
	if c.Local.Workspace != "/etc/harness/ws" || c.StateDir != DefaultStateDir() {
		t.Errorf("paths not resolved: %q %q", c.Local.Workspace, c.StateDir)
	}
	if got := c.Local.Tools["write_note"].EffectOrDefault(); got != Destructive {
		t.Errorf("tool listed without effect: %s; want destructive", got)
	}
	if got := c.Servers["repo"].Tools["apply_patch"].EffectOrDefault(); got != Destructive {
		t.Errorf("empty policy: %s; want destructive", got)
	}
	if c.Servers["repo"].Approve != ApproveExplicit || c.SummaryBytes != DefaultSummaryBytes || *c.RetryReadOnly != 1 {
		t.Errorf("defaults not applied: %+v", c)
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown key", "servers: {a: {command: [x], tool: {}}}", "field tool not found"},
		{"duplicate key", "max_turns: 1\nmax_turns: 2", "already defined"},
		{"bad effect", "servers: {a: {command: [x], tools: {t: {effect: safe}}}}", `effect "safe"`},
		{"no command", "servers: {a: {tools: {}}}", "command is required"},
		{"bad name", "servers: {A.b: {command: [x]}}", "server names"},
		{"two documents", "max_turns: 1\n---\nmax_turns: 2", "more than one"},
		{"empty", "", "empty"},
		{"unknown local tool", "local: {workspace: ., tools: {rm: {}}}", "no such tool"},
		{"bad approve", "servers: {a: {command: [x], approve: always}}", "approve"},
		{"bad model", "model: {kind: gpt}", "kind"},
		{"preview with a tool not allowlisted", "servers: {a: {command: [x], tools: {apply: {preview_with: {tool: show}}}}}", "preview_with"},
		{"command and url", "servers: {a: {command: [x], url: 'http://h/mcp'}}", "not both"},
		{"url not HTTP", "servers: {a: {url: 'ftp://h/mcp'}}", "http or https"},
		{"headers for a command", "servers: {a: {command: [x], headers: {A: b}}}", "headers are for a url"},
		{"env for a url", "servers: {a: {url: 'http://h/mcp', inherit: [HOME]}}", "not a url"},
		{"bad header name", "servers: {a: {url: 'http://h/mcp', headers: {'A b': c}}}", "not a header name"},
		{"preview with a tool that writes", "servers: {a: {command: [x], tools: {apply: {preview_with: {tool: show}}, show: {effect: write}}}}", "preview_with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "/")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestServerOverHTTP(t *testing.T) {
	c, err := Parse([]byte(`
servers:
  remote:
    url: https://mcp.example.com/mcp
    headers:
      Authorization: "Bearer ${REPO_MCP_TOKEN}"
      X-Team: "$literal ${TEAM}"
    tools:
      read_file: {effect: read_only}
`), "/")
	if err != nil {
		t.Fatal(err)
	}
	s := c.Servers["remote"]
	env := map[string]string{"REPO_MCP_TOKEN": "rmcp_secret", "TEAM": "blue"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	h, err := s.HTTPHeader(lookup)
	if err != nil || h.Get("Authorization") != "Bearer rmcp_secret" || h.Get("X-Team") != "$literal blue" {
		t.Fatalf("HTTPHeader = %v, %v", h, err)
	}
	delete(env, "REPO_MCP_TOKEN")
	_, err = s.HTTPHeader(lookup)
	if err == nil || !strings.Contains(err.Error(), "${REPO_MCP_TOKEN} is not set") {
		t.Fatalf("HTTPHeader without the variable: %v; want it named", err)
	}
}

func TestStricter(t *testing.T) {
	if ReadOnly.Stricter(Destructive) != Destructive || Destructive.Stricter(ReadOnly) != Destructive || Write.Stricter(Network) != Network {
		t.Error("Stricter does not order effects")
	}
}
