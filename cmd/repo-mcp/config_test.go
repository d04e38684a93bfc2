package main

import (
	"strings"
	"testing"
)

func TestDecodeConfigStrict(t *testing.T) {
	const digest = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b" // of "secret"
	good := "workspaces:\n  - id: ws\n    root: /x\npolicies:\n  - identity: alice\n    workspaces: [ws]\n    actions: [read]\n" +
		"tokens:\n  - identity: alice\n    sha256: " + digest + "\n    expires: 2027-06-30\n"
	cfg, err := decodeConfig(strings.NewReader(good))
	if err != nil || cfg.validate() != nil || len(cfg.Tokens) != 1 || cfg.Tokens[0].Expires.Year() != 2027 ||
		len(cfg.Workspaces) != 1 || len(cfg.Policies) != 1 {
		t.Errorf("decodeConfig(%q) = %+v, %v", good, cfg, err)
	}
	for _, bad := range []string{
		"workspaces:\n  - id: ws\n    root: /x\n    rooot: /y\n",
		"workspace: []\n",
		"policies:\n  - identity: a\n    actions: read\n",
		"workspaces: []\n---\nworkspaces: []\n",
		"workspaces:\n  - id: ws\n    root: /x\n    worktree: maybe\n",
		"tokens:\n  - identity: a\n    sha256: " + digest + "\n    expires: soon\n",
		"tokens:\n  - identity: a\n    token: secret\n",
		"oauth:\n  resource: https://r.example/mcp\n  issuer: https://i.example\n  audience: x\n",
	} {
		if _, err := decodeConfig(strings.NewReader(bad)); err == nil {
			t.Errorf("decodeConfig accepted %q", bad)
		}
	}
	for _, bad := range []fileConfig{
		{Tokens: []tokenConfig{{Identity: "", SHA256: digest}}},
		{Tokens: []tokenConfig{{Identity: "*", SHA256: digest}}},
		{Tokens: []tokenConfig{{Identity: "a\nb", SHA256: digest}}},
		{Tokens: []tokenConfig{{Identity: "a", SHA256: digest[:63]}}},
		{Tokens: []tokenConfig{{Identity: "a", SHA256: strings.ToUpper(digest)}}},
		{Tokens: []tokenConfig{{Identity: "a", SHA256: "z" + digest[1:]}}},
		{Tokens: []tokenConfig{{Identity: "a", SHA256: digest}, {Identity: "b", SHA256: digest}}},
		{OAuth: &oauthConfig{Issuer: "https://i.example"}},
		{OAuth: &oauthConfig{Resource: "https://r.example/mcp"}},
	} {
		if err := bad.validate(); err == nil {
			t.Errorf("validate accepted %+v", bad)
		}
	}
}
