package workspace

import (
	"fmt"
	"slices"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// Action is something a caller does in a workspace. Policies grant actions.
type Action string

// The actions a policy can grant.
const (
	ActionRead    Action = "read"    // read files, list, repository facts
	ActionSearch  Action = "search"  // search text and symbols
	ActionPropose Action = "propose" // generate and preview patches
	ActionApply   Action = "apply"   // apply a previewed patch
	ActionVerify  Action = "verify"  // run allowlisted checks
)

var allActions = []Action{ActionRead, ActionSearch, ActionPropose, ActionApply, ActionVerify}

// Valid reports whether a is one of the defined actions.
func (a Action) Valid() bool { return slices.Contains(allActions, a) }

// Access is who is asking, and for what. It is passed with every call
// (never kept globally): over stdio the identity is the operator's, over
// HTTP it comes from the caller's token.
type Access struct {
	Identity string
	Action   Action
}

// policy is a compiled PolicyConfig.
type policy struct {
	name          string // "policy 2 (alice)", used in denials
	identity      string
	allWorkspaces bool
	workspaces    map[string]bool
	actions       map[Action]bool
	allow         []Glob // nil: every path
	deny          []Glob
	refs          []Glob // nil: every revision
}

func compilePolicy(i int, pc PolicyConfig) (*policy, error) {
	p := &policy{
		name:       fmt.Sprintf("policy %d (%s)", i+1, pc.Identity),
		identity:   pc.Identity,
		workspaces: make(map[string]bool),
		actions:    make(map[Action]bool),
	}
	for _, id := range pc.Workspaces {
		if id == "*" {
			p.allWorkspaces = true
		}
		p.workspaces[id] = true
	}
	for _, a := range pc.Actions {
		p.actions[a] = true
	}
	var err error
	if p.allow, err = compileGlobs(pc.Allow); err != nil {
		return nil, fmt.Errorf("%s allow: %w", p.name, err)
	}
	if p.deny, err = compileGlobs(pc.Deny); err != nil {
		return nil, fmt.Errorf("%s deny: %w", p.name, err)
	}
	if p.refs, err = compileGlobs(pc.Refs); err != nil {
		return nil, fmt.Errorf("%s refs: %w", p.name, err)
	}
	return p, nil
}

func compileGlobs(patterns []string) ([]Glob, error) {
	var out []Glob
	for _, s := range patterns {
		g, err := ParseGlob(s)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func (p *policy) appliesTo(identity, workspaceID string) bool {
	return (p.identity == identity || p.identity == "*") && (p.allWorkspaces || p.workspaces[workspaceID])
}

// pathVerdict says whether a policy lets a path through and, if not, why.
// asDir relaxes the allow list to paths that may contain allowed ones.
func (p *policy) pathVerdict(clean string, asDir bool) (ok bool, why string) {
	ok, denier := p.judgePath(clean, asDir)
	switch {
	case ok:
		return true, ""
	case denier != nil:
		return false, fmt.Sprintf("%s denies %q", p.name, denier.String())
	}
	return false, fmt.Sprintf("%s allows only %s", p.name, globList(p.allow))
}

// judgePath is pathVerdict without the message, for listings, which judge
// every entry and never explain: it returns the deny glob that refuses the
// path, or nil when the allow list leaves it out.
func (p *policy) judgePath(clean string, asDir bool) (bool, *Glob) {
	if clean != "" {
		for i := range p.deny {
			if matchSelfOrAncestor(p.deny[i], clean) {
				return false, &p.deny[i]
			}
		}
	}
	if p.allow == nil || clean == "" && asDir {
		return true, nil
	}
	for _, g := range p.allow {
		if matchSelfOrAncestor(g, clean) || asDir && g.MatchPrefix(clean) {
			return true, nil
		}
	}
	return false, nil
}

func (p *policy) allowsRef(ref string) bool {
	if p.refs == nil {
		return true
	}
	for _, g := range p.refs {
		if g.Match(ref) {
			return true
		}
	}
	return false
}

// matchSelfOrAncestor reports whether g matches p or one of its ancestor
// directories.
func matchSelfOrAncestor(g Glob, p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && g.Match(p[:i]) {
			return true
		}
	}
	return g.Match(p)
}

func globList(gs []Glob) string {
	s := ""
	for i, g := range gs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", g.String())
	}
	return s
}

// grant is the set of policies that give one identity one action in one
// workspace, together with the workspace's own deny list. Path checks
// consult it; it is what a Snapshot carries.
type grant struct {
	access   Access
	ws       *Workspace
	policies []*policy
}

// checkPath authorizes a clean path. asDir is true when the path is a
// directory being listed (it may then merely contain allowed paths).
func (g *grant) checkPath(clean string, asDir bool) error {
	if pat, denied := g.ws.deny.match(clean); denied {
		return errclass.Errorf(errclass.PermissionDenied,
			"path %s is denied by the workspace secret pattern %q", quoteInput(clean), pat)
	}
	why := ""
	for _, p := range g.policies {
		ok, reason := p.pathVerdict(clean, asDir)
		if ok {
			return nil
		}
		if why == "" {
			why = reason
		}
	}
	return errclass.Errorf(errclass.PermissionDenied, "path %s is not allowed for identity %q: %s",
		quoteInput(clean), g.access.Identity, why)
}

// hidesEntry reports whether a listing must leave out the entry at clean
// path p, given that its parent passed. It is the hot path of listings.
func (g *grant) hidesEntry(p string, isDir bool) bool {
	if _, denied := g.ws.deny.matchEntry(p); denied {
		return true
	}
	return g.policyHides(p, isDir)
}

// policyHides is the part of hidesEntry the caller's policies decide.
func (g *grant) policyHides(p string, isDir bool) bool {
	for _, pol := range g.policies {
		if pol.allow == nil && pol.deny == nil {
			return false
		}
		if ok, _ := pol.judgePath(p, isDir); ok {
			return false
		}
	}
	return true
}

// restrictsPaths reports whether policyHides may hide anything: it does
// not when one of the policies allows every path.
func (g *grant) restrictsPaths() bool {
	for _, pol := range g.policies {
		if pol.allow == nil && pol.deny == nil {
			return false
		}
	}
	return true
}

// checkRef authorizes reading a revision named by ref: a full ref name,
// "HEAD", "commit" (a SHA) or "worktree".
func (g *grant) checkRef(ref, asGiven string) error {
	for _, p := range g.policies {
		if p.allowsRef(ref) {
			return nil
		}
	}
	return errclass.Errorf(errclass.PermissionDenied,
		"revision %s (%s) is not among the refs the policies of identity %q allow",
		quoteInput(asGiven), ref, g.access.Identity)
}
