package workspace

import (
	"fmt"
	"strings"
)

// Config is what an operator configures: the workspaces and who may do what
// in them. Its YAML form is below; the command that reads the file adds
// its own keys (who may call over HTTP) beside these, and
// [ParseWorkspaceFlag] reads a --workspace flag.
//
//	workspaces:
//	  - id: app
//	    root: /srv/repos/app
//	    worktree: true          # the revision "worktree" may be read
//	    read_only: true         # no apply, whatever a policy says
//	    deny: ["fixtures/private/**"]
//	    verify_secret_fixtures: ["**/testdata/**"]  # the default
//	policies:
//	  - identity: local
//	    workspaces: ["*"]
//	    actions: [read, search]
//	    allow: ["**"]
//	    deny: ["vendor/**"]
//	    refs: ["refs/heads/*", "refs/tags/*", "HEAD", "commit"]
type Config struct {
	Workspaces []WorkspaceConfig `yaml:"workspaces"`
	Policies   []PolicyConfig    `yaml:"policies"`
}

// WorkspaceConfig describes one workspace.
type WorkspaceConfig struct {
	// ID is what callers name the workspace by: 1 to 64 characters from
	// [a-z0-9._-], starting with a letter or digit.
	ID string `yaml:"id"`
	// Root is the directory of the repository: a working tree with a .git
	// directory, or a bare repository.
	Root string `yaml:"root"`
	// Worktree allows the special revision "worktree", which reads the files
	// on disk instead of a commit.
	Worktree bool `yaml:"worktree"`
	// ReadOnly refuses the apply action, whatever the policies grant.
	ReadOnly bool `yaml:"read_only"`
	// Deny adds patterns to [DefaultDenyPatterns] for this workspace.
	Deny []string `yaml:"deny"`

	// VerifySecretFixtures lists path globs of test fixtures that
	// verify_patch exports although a secret pattern matches them (a test
	// key in testdata/ that tests read); their contents are redacted from
	// the checks' output. A path the caller's policy denies is never
	// exported. Default ["**/testdata/**"]; an empty list exports none.
	VerifySecretFixtures []string `yaml:"verify_secret_fixtures"`
}

// DefaultVerifySecretFixtures is the default of
// [WorkspaceConfig.VerifySecretFixtures].
var DefaultVerifySecretFixtures = []string{"**/testdata/**"}

// PolicyConfig grants one identity some actions in some workspaces.
// An identity's grants are the union of its policies; a path or ref denied
// by the policy that grants an action is denied for that action.
type PolicyConfig struct {
	// Identity is the caller this policy applies to ("*" for everyone).
	Identity string `yaml:"identity"`
	// Workspaces lists workspace ids, or "*" for all.
	Workspaces []string `yaml:"workspaces"`
	// Actions lists what the identity may do: read, search, propose, apply,
	// verify.
	Actions []Action `yaml:"actions"`
	// Allow lists path globs the identity may touch; empty means all.
	Allow []string `yaml:"allow"`
	// Deny lists path globs the identity may not touch, even if allowed.
	Deny []string `yaml:"deny"`
	// Refs lists the revisions the identity may read: globs over full ref
	// names ("refs/heads/*", "refs/tags/v*"), "HEAD", "commit" for a
	// revision given as a SHA, and "worktree". Empty means all.
	Refs []string `yaml:"refs"`
}

// ParseWorkspaceFlag parses the value of a --workspace flag, ID=PATH.
// Worktree reads are off; the operator enables them in the config file.
func ParseWorkspaceFlag(spec string) (WorkspaceConfig, error) {
	id, root, ok := strings.Cut(spec, "=")
	if !ok || root == "" {
		return WorkspaceConfig{}, fmt.Errorf("--workspace %q: want ID=PATH", spec)
	}
	if err := CheckID(id); err != nil {
		return WorkspaceConfig{}, fmt.Errorf("--workspace: %w", err)
	}
	return WorkspaceConfig{ID: id, Root: root}, nil
}

// MaxIDLength bounds a workspace id.
const MaxIDLength = 64

// CheckID reports whether id is a well-formed workspace id.
func CheckID(id string) error {
	if id == "" || len(id) > MaxIDLength {
		return fmt.Errorf("workspace id must be 1 to %d characters", MaxIDLength)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || (c != '.' && c != '_' && c != '-')) {
			return fmt.Errorf("workspace id %s: want [a-z0-9][a-z0-9._-]*", quoteInput(id))
		}
	}
	return nil
}

// Validate checks the parts of a configuration that do not need the disk.
func (c Config) Validate() error {
	seen := make(map[string]bool)
	for _, w := range c.Workspaces {
		if err := CheckID(w.ID); err != nil {
			return err
		}
		if seen[w.ID] {
			return fmt.Errorf("workspace %q is configured twice", w.ID)
		}
		seen[w.ID] = true
		if w.Root == "" {
			return fmt.Errorf("workspace %q has no root", w.ID)
		}
	}
	for i, p := range c.Policies {
		if p.Identity == "" {
			return fmt.Errorf("policy %d has no identity", i+1)
		}
		if len(p.Workspaces) == 0 || len(p.Actions) == 0 {
			return fmt.Errorf("policy %d (%s) needs workspaces and actions", i+1, p.Identity)
		}
		for _, id := range p.Workspaces {
			if id != "*" && !seen[id] {
				return fmt.Errorf("policy %d (%s) names unknown workspace %q", i+1, p.Identity, id)
			}
		}
		for _, a := range p.Actions {
			if !a.Valid() {
				return fmt.Errorf("policy %d (%s): unknown action %q", i+1, p.Identity, a)
			}
		}
	}
	return nil
}
