package workspace

import (
	"context"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/repo-mcp/repo-mcp/errclass"
)

const policyYAML = `
workspaces:
  - id: ws
    root: ROOT
    read_only: true
    deny: ["a/b/**"]
policies:
  - identity: alice
    workspaces: ["*"]
    actions: [read, search]
    allow: ["a/**", "README.md"]
    deny: ["a/x.go"]
    refs: ["refs/heads/main", "HEAD"]
  - identity: bob
    workspaces: [ws]
    actions: [propose, apply]
`

func openPolicyRegistry(t *testing.T) *Registry {
	t.Helper()
	repo, _ := basicRepo(t)
	var cfg Config
	dec := yaml.NewDecoder(strings.NewReader(strings.ReplaceAll(policyYAML, "ROOT", repo.Dir)))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	reg, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	return reg
}

func TestAuthorize(t *testing.T) {
	reg := openPolicyRegistry(t)
	for _, tc := range []struct {
		identity string
		action   Action
		path     string
		class    errclass.Class // "" means allowed
		reason   string         // a fragment of the denial naming the rule
	}{
		{"alice", ActionRead, "", "", ""},
		{"alice", ActionRead, "README.md", "", ""},
		{"alice", ActionRead, "a/b", "permission_denied", `secret pattern "a/b/**"`},
		{"alice", ActionSearch, "a", "", ""},
		{"alice", ActionRead, "a/x.go", "permission_denied", `policy 1 (alice) denies "a/x.go"`},
		{"alice", ActionRead, "bin/run", "permission_denied", `allows only "a/**", "README.md"`},
		{"alice", ActionRead, ".env", "permission_denied", `secret pattern ".env"`},
		{"alice", ActionRead, "x/y/id_rsa.pub", "permission_denied", `"id_rsa*"`},
		{"alice", ActionRead, "home/.SSH/known_hosts", "permission_denied", `".ssh"`},
		{"alice", ActionRead, "p/.aws/credentials", "permission_denied", `".aws/credentials"`},
		{"alice", ActionPropose, "", "permission_denied", `no policy grants identity "alice" the action "propose"`},
		{"bob", ActionPropose, "bin/run", "", ""},
		{"bob", ActionApply, "", "permission_denied", "read-only"},
		{"bob", ActionRead, "", "permission_denied", "no policy grants"},
		{"mallory", ActionRead, "", "not_found", "no workspace"},
		{"alice", "delete", "", "invalid_input", "unknown action"},
	} {
		err := reg.Authorize(tc.identity, "ws", tc.action, tc.path)
		if tc.class == "" {
			if err != nil {
				t.Errorf("Authorize(%s, %s, %q) = %v, want nil", tc.identity, tc.action, tc.path, err)
			}
			continue
		}
		if errclass.ClassOf(err) != tc.class || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("Authorize(%s, %s, %q) = %v, want %s mentioning %s", tc.identity, tc.action, tc.path, err, tc.class, tc.reason)
		}
	}
}

// TestSnapshotEnforcesPolicy checks the second line of defense: reads
// through a Snapshot apply the same rules, exactly, and listings leave out
// what the caller may not see.
func TestSnapshotEnforcesPolicy(t *testing.T) {
	reg := openPolicyRegistry(t)
	ctx := context.Background()
	alice := Access{Identity: "alice", Action: ActionRead}
	s, err := reg.Snapshot(ctx, alice, "ws", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadFile(ctx, "README.md", ReadOptions{}); err != nil {
		t.Errorf("README.md: %v", err)
	}
	for _, p := range []string{"a/x.go", "a/b/y.go", "bin/run", ".env", "config/prod.pem"} {
		_, err := s.ReadFile(ctx, p, ReadOptions{})
		wantClass(t, err, errclass.PermissionDenied)
	}
	got, stats := walkPaths(t, s, "", WalkOptions{Recursive: true})
	if diff := diffStrings([]string{"README.md", "a/"}, got); diff != "" {
		t.Errorf("walk: %s", diff)
	}
	if stats.Omitted != 8 { // .env, a.c, a/b, a/x.go, bin, config, docs, vendor
		t.Errorf("omitted = %d, want 8", stats.Omitted)
	}
	for _, rev := range []string{"dev", "v1", "worktree", s.Revision().SHA} {
		_, err := reg.Snapshot(ctx, alice, "ws", rev)
		if rev == "worktree" {
			wantClass(t, err, errclass.PermissionDenied)
			continue
		}
		wantClass(t, err, errclass.PermissionDenied)
		if !strings.Contains(err.Error(), "not among the refs") {
			t.Errorf("rev %s: %v", rev, err)
		}
	}
	bob := Access{Identity: "bob", Action: ActionRead}
	_, err = reg.Snapshot(ctx, bob, "ws", "HEAD")
	wantClass(t, err, errclass.PermissionDenied)
}

func TestConfigValidate(t *testing.T) {
	for _, bad := range []Config{
		{Workspaces: []WorkspaceConfig{{ID: "ws", Root: "/x"}, {ID: "ws", Root: "/y"}}},
		{Workspaces: []WorkspaceConfig{{ID: "Bad", Root: "/x"}}},
		{Workspaces: []WorkspaceConfig{{ID: "ws"}}},
		{Policies: []PolicyConfig{{Identity: "a", Workspaces: []string{"nope"}, Actions: []Action{ActionRead}}}},
		{Policies: []PolicyConfig{{Identity: "a", Workspaces: []string{"*"}, Actions: []Action{"rm"}}}},
		{Policies: []PolicyConfig{{Workspaces: []string{"*"}, Actions: []Action{ActionRead}}}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate accepted %+v", bad)
		}
	}
}

func TestParseWorkspaceFlag(t *testing.T) {
	wc, err := ParseWorkspaceFlag("app=/srv/app=x")
	if err != nil || wc.ID != "app" || wc.Root != "/srv/app=x" || wc.Worktree {
		t.Fatalf("got %+v, %v", wc, err)
	}
	for _, bad := range []string{"", "app", "app=", "=/x", "App=/x", "a b=/x", "../x=/y"} {
		if _, err := ParseWorkspaceFlag(bad); err == nil {
			t.Errorf("ParseWorkspaceFlag(%q) accepted", bad)
		}
	}
}

func TestOpenRefusesNonRepositories(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{}); err == nil {
		t.Fatal("Open accepted a directory that is not a repository")
	}
	if _, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir + "/missing"}}}, Options{}); err == nil {
		t.Fatal("Open accepted a missing root")
	}
}
