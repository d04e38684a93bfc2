package patch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Targets of apply_patch.
const (
	targetBranch   = "branch"
	targetWorktree = "worktree"
)

// PreviewDiffIn is what preview_diff takes.
type PreviewDiffIn struct {
	toolkit.Selector
	// PatchID is the id generate_patch returned.
	PatchID string `json:"patch_id" jsonschema:"minLength=40,maxLength=40,pattern=^[0-9a-f]{40}$"`
	// Paths limits the diff shown to these files (the digest always covers the whole patch).
	Paths []string `json:"paths,omitempty" jsonschema:"maxItems=1000"`
	// ContextLines is the number of context lines around each change. Default 3.
	ContextLines *int `json:"context_lines,omitempty" jsonschema:"minimum=0,maximum=1000"`
	// Target is where the applicability is checked: "branch" (default) or "worktree".
	Target string `json:"target,omitempty" jsonschema:"enum=branch,enum=worktree"`
	// Branch is the branch an apply would move (target branch). Default repo-mcp/<first 12 digits of patch_id>.
	Branch string `json:"branch,omitempty" jsonschema:"maxLength=200"`
}

// Approval is what apply_patch must echo: it binds the apply to the diff
// that was reviewed.
type Approval struct {
	// PatchID is the patch reviewed.
	PatchID string `json:"patch_id"`
	// Base is the commit it was made on.
	Base string `json:"base"`
	// DiffSHA256 is the digest of its canonical diff.
	DiffSHA256 string `json:"diff_sha256"`
}

// PreviewDiffOut is what preview_diff returns.
type PreviewDiffOut struct {
	PatchView
	// Filtered says diff shows only some files, or a context other than the canonical one.
	Filtered bool `json:"filtered"`
	// Target is the target the applicability was checked against.
	Target string `json:"target"`
	// Branch is the full name of the branch checked (target branch).
	Branch string `json:"branch,omitempty"`
	// Applies says whether apply_patch would succeed on the target right now.
	Applies bool `json:"applies"`
	// AlreadyApplied says the patch was already applied to this target.
	AlreadyApplied bool `json:"already_applied"`
	// Conflicts say why it would not apply.
	Conflicts []workspace.Conflict `json:"conflicts,omitempty"`
	// Approval is what apply_patch must echo.
	Approval Approval `json:"approval"`
}

// Text renders the preview for a reader.
func (o PreviewDiffOut) Text() string {
	state := "applies to " + o.Target
	switch {
	case o.AlreadyApplied:
		state = "already applied to " + o.Target
	case !o.Applies:
		var why []string
		for _, c := range o.Conflicts {
			why = append(why, strings.TrimSpace(c.Path+" "+c.Reason))
		}
		state = "does NOT apply to " + o.Target + ": " + strings.Join(why, "; ")
	}
	return o.PatchView.text(fmt.Sprintf("Patch %s (%s)", o.PatchID, state))
}

func (t *tools) preview(ctx context.Context, req *server.Request, in PreviewDiffIn) (PreviewDiffOut, error) {
	ws, err := t.reg.Workspace(toolkit.Access(req), in.WorkspaceID)
	if err != nil {
		return PreviewDiffOut{}, err
	}
	p, err := t.proposal(ws, in.PatchID)
	if err != nil {
		return PreviewDiffOut{}, err
	}
	snap, err := t.reg.Snapshot(ctx, toolkit.Access(req), in.WorkspaceID, p.base)
	if err != nil {
		return PreviewDiffOut{}, err
	}
	for _, c := range p.changes { // a caller sees only a patch all of whose paths it may see
		for _, path := range []string{c.OldPath, c.NewPath} {
			if path == "" {
				continue
			}
			if _, err := snap.Authorize(path, false); err != nil {
				return PreviewDiffOut{}, err
			}
		}
	}
	diff, filtered, err := t.filteredDiff(p, in)
	if err != nil {
		return PreviewDiffOut{}, err
	}
	out := PreviewDiffOut{
		PatchView: t.view(p, diff), Filtered: filtered, Target: in.Target,
		Approval: Approval{PatchID: p.id, Base: p.base, DiffSHA256: p.digest},
	}
	if out.Target == "" {
		out.Target = targetBranch
	}
	st, err := t.state(ctx, snap, p, out.Target, in.Branch)
	if err != nil {
		return PreviewDiffOut{}, err
	}
	out.Branch, out.AlreadyApplied, out.Conflicts = st.branch, st.record != nil, st.conflicts
	out.Applies = out.AlreadyApplied || len(out.Conflicts) == 0
	return out, nil
}

// filteredDiff renders the diff a preview asked for.
func (t *tools) filteredDiff(p *proposal, in PreviewDiffIn) (string, bool, error) {
	ctxLines := canonicalContext
	if in.ContextLines != nil {
		ctxLines = *in.ContextLines
	}
	if len(in.Paths) == 0 && ctxLines == canonicalContext {
		return p.diff, false, nil
	}
	changes := p.changes
	if len(in.Paths) > 0 {
		want := map[string]bool{}
		for _, path := range in.Paths {
			clean, err := workspace.CleanPath(path)
			if err != nil {
				return "", false, err
			}
			want[clean] = true
		}
		changes = nil
		for _, c := range p.changes {
			if want[c.OldPath] || want[c.NewPath] {
				changes = append(changes, c)
			}
		}
	}
	diff, _, err := renderDiff(changes, ctxLines)
	if err != nil {
		return "", false, server.Errorf(server.Internal, "rendering the diff failed").Wrap(err)
	}
	return diff, true, nil
}

// targetState is where a patch stands against a target.
type targetState struct {
	branch    string  // full ref name, for target branch
	current   string  // the branch's head now ("" when it does not exist)
	record    *Record // the record of an earlier apply to this target
	conflicts []workspace.Conflict
	files     []workspace.WorktreeFile
}

// state checks whether p applies to a target right now.
func (t *tools) state(ctx context.Context, snap *workspace.Snapshot, p *proposal, target, branch string) (*targetState, error) {
	ws := snap.Workspace()
	st := &targetState{}
	switch target {
	case targetBranch:
		if branch == "" {
			branch = "repo-mcp/" + p.id[:12]
		}
		var err error
		if st.branch, err = workspace.BranchRef(branch); err != nil {
			return nil, err
		}
		// An apply to this branch that died after its move is recorded
		// before the record is looked for (workspace/intents.go).
		if _, err = ws.Records().SettleIntent(st.branch, time.Now()); err != nil {
			return nil, err
		}
		if st.current, err = snap.ReadBranch(st.branch); err != nil {
			return nil, err
		}
		if st.record, err = readRecord(ws, recordRef(p.id, target, st.branch)); err != nil || st.record != nil {
			return st, err
		}
		if st.current != "" && st.current != p.base && st.current != p.id {
			st.conflicts = append(st.conflicts, workspace.Conflict{
				Reason: fmt.Sprintf("branch %s is at %s, not at the base %s", st.branch, st.current, p.base)})
		}
		head, err := snap.Head()
		if err != nil {
			return nil, err
		}
		if !ws.Bare() && head.Ref == st.branch {
			st.conflicts = append(st.conflicts, workspace.Conflict{
				Reason: fmt.Sprintf("branch %s is checked out; moving it would change what HEAD means (apply to the worktree instead)", st.branch)})
		}
		return st, nil
	case targetWorktree:
		var err error
		if st.record, err = readRecord(ws, recordRef(p.id, target, "")); err != nil || st.record != nil {
			return st, err
		}
		for _, c := range p.changes {
			st.files = append(st.files, worktreeFiles(c)...)
		}
		st.conflicts, _, err = snap.CheckWorktree(ctx, p.base, st.files)
		return st, err
	}
	return nil, server.Errorf(server.InvalidInput, "target must be branch or worktree")
}

// worktreeFiles turns a change into the files a worktree apply writes.
func worktreeFiles(c *fileChange) []workspace.WorktreeFile {
	if c.OldPath != "" && c.NewPath != "" && c.OldPath != c.NewPath {
		return []workspace.WorktreeFile{
			{Path: c.OldPath, BaseSHA: c.OldSHA, BaseMode: c.OldMode},
			{Path: c.NewPath, NewSHA: c.NewSHA, NewMode: c.NewMode},
		}
	}
	return []workspace.WorktreeFile{{Path: c.path(), BaseSHA: c.OldSHA, BaseMode: c.OldMode, NewSHA: c.NewSHA, NewMode: c.NewMode}}
}
