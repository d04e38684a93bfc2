package patch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// GeneratePatchIn is what generate_patch takes: a base and one of edits, a
// diff or a patch envelope.
type GeneratePatchIn struct {
	toolkit.Target
	// Edits are the changes, applied in order. Give one of edits, diff and patch.
	Edits []Edit `json:"edits,omitempty" jsonschema:"maxItems=1000"`
	// Diff is a unified diff (git diff or diff -u format) against the base revision. Hunks are located by their context and removed lines; header line numbers and counts may be off.
	Diff string `json:"diff,omitempty" jsonschema:"maxLength=8388608"`
	// Patch is an envelope: *** Begin Patch, then *** Add File: / *** Delete File: / *** Update File: (optionally *** Move to:) sections, then *** End Patch (see the tool description).
	Patch string `json:"patch,omitempty" jsonschema:"maxLength=8388608"`
	// Summary is a one-line description of the change, kept with the proposal.
	Summary string `json:"summary,omitempty" jsonschema:"maxLength=200"`
}

// Scope names the files the edits touch, for authorization before the
// call; a diff's paths are checked by the workspace once it is parsed.
func (in GeneratePatchIn) Scope() workspace.Scope {
	sc := in.Target.Scope()
	for _, e := range in.Edits {
		sc = sc.WithPaths(e.Path, e.NewPath)
	}
	return sc
}

// FileStat is one file of a patch.
type FileStat struct {
	// Path is the file's path after the patch (before it, for a deletion).
	Path string `json:"path"`
	// OldPath is the path before a rename.
	OldPath string `json:"old_path,omitempty"`
	// Status is "added", "modified", "deleted" or "renamed".
	Status string `json:"status"`
	// Additions counts added lines.
	Additions int `json:"additions"`
	// Deletions counts deleted lines.
	Deletions int `json:"deletions"`
}

// PatchView is a patch as generate_patch and preview_diff show it.
type PatchView struct {
	// PatchID names the proposal in this workspace.
	PatchID string `json:"patch_id"`
	// Base is the full SHA of the commit the patch was made on.
	Base string `json:"base"`
	// Summary is the proposal's one-line description.
	Summary string `json:"summary,omitempty"`
	// Files lists the files the patch changes.
	Files []FileStat `json:"files"`
	// Additions counts added lines, over all files.
	Additions int `json:"additions"`
	// Deletions counts deleted lines, over all files.
	Deletions int `json:"deletions"`
	// Diff is the unified diff, cut at the result bound when truncated is set.
	Diff string `json:"diff"`
	// DiffBytes is the size of the whole diff.
	DiffBytes int `json:"diff_bytes"`
	// Truncated says diff was cut; preview_diff with a path filter shows the rest.
	Truncated bool `json:"truncated"`
	// DiffSHA256 is the SHA-256 of the canonical diff (all files, 3 lines of context); apply_patch needs it.
	DiffSHA256 string `json:"diff_sha256"`
}

// GeneratePatchOut is what generate_patch returns.
type GeneratePatchOut struct {
	PatchView
	// Corrections lists every liberty taken in reading the diff or patch (hunks found at other lines, counts recounted, a fence removed...). The diff shown is what will be applied.
	Corrections []Correction `json:"corrections,omitempty"`
}

// Text renders the patch for a reader.
func (o GeneratePatchOut) Text() string {
	text := o.PatchView.text("Proposed patch " + o.PatchID)
	if len(o.Corrections) == 0 {
		return text
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The input was read with %d corrections; review the diff, which is what will be applied:\n", len(o.Corrections))
	for _, c := range o.Corrections {
		where := ""
		switch {
		case c.Path != "" && c.Hunk > 0:
			where = fmt.Sprintf("%s hunk %d: ", c.Path, c.Hunk)
		case c.Path != "":
			where = c.Path + ": "
		}
		fmt.Fprintf(&b, "  %s: %s%s\n", c.Kind, where, c.Detail)
	}
	return b.String() + text
}

func (v PatchView) text(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on base %s: %s, +%d -%d, diff_sha256 %s\n", title, v.Base, toolkit.Count(len(v.Files), "file", "files"), v.Additions, v.Deletions, v.DiffSHA256)
	for _, f := range v.Files {
		name := f.Path
		if f.OldPath != "" {
			name = f.OldPath + " -> " + f.Path
		}
		fmt.Fprintf(&b, "  %-8s %s (+%d -%d)\n", f.Status, name, f.Additions, f.Deletions)
	}
	header := "Diff"
	if v.Truncated {
		header = fmt.Sprintf("Diff (cut at %d of %d bytes; preview_diff with paths shows the rest)", len(v.Diff), v.DiffBytes)
	}
	return toolkit.Fence(b.String()+header+":", v.Diff)
}

func (t *tools) generate(ctx context.Context, req *server.Request, in GeneratePatchIn) (GeneratePatchOut, error) {
	given := 0
	for _, set := range []bool{len(in.Edits) > 0, in.Diff != "", in.Patch != ""} {
		if set {
			given++
		}
	}
	switch {
	case given == 0:
		return GeneratePatchOut{}, server.Errorf(server.InvalidInput, "give edits, a diff or a patch")
	case given > 1:
		return GeneratePatchOut{}, server.Errorf(server.InvalidInput, "give one of edits, diff and patch, not several")
	case strings.ContainsAny(in.Summary, "\r\n"):
		return GeneratePatchOut{}, server.Errorf(server.InvalidInput, "summary must be one line")
	}
	snap, err := t.reg.Snapshot(ctx, toolkit.Access(req), in.WorkspaceID, in.Revision)
	if err != nil {
		return GeneratePatchOut{}, err
	}
	if snap.Revision().SHA == workspace.WorktreeRevision {
		return GeneratePatchOut{}, server.Errorf(server.InvalidInput, "the base must be a commit, not the working tree")
	}
	o := newOverlay(snap, t.opts)
	var n notes
	switch {
	case in.Diff != "":
		err = o.applyText(ctx, formatDiff, in.Diff, &n)
	case in.Patch != "":
		err = o.applyText(ctx, formatEnvelope, in.Patch, &n)
	}
	for i, e := range in.Edits {
		if err != nil {
			break
		}
		err = o.apply(ctx, i, e)
	}
	if err != nil {
		return GeneratePatchOut{}, err
	}
	changes, err := o.changes()
	if err != nil {
		return GeneratePatchOut{}, err
	}
	if err := t.checkProtected(req, in.WorkspaceID, changes); err != nil {
		return GeneratePatchOut{}, err
	}
	if err := t.checkProposalQuota(snap.Workspace(), req.Caller); err != nil {
		return GeneratePatchOut{}, err
	}
	id, err := t.store(snap, changes, in.Summary, req)
	if err != nil {
		return GeneratePatchOut{}, err
	}
	p, err := t.proposal(snap.Workspace(), id)
	if err != nil {
		return GeneratePatchOut{}, err
	}
	return GeneratePatchOut{PatchView: t.view(p, p.diff), Corrections: n.list}, nil
}

// checkProtected requires the apply action on protected paths.
func (t *tools) checkProtected(req *server.Request, workspaceID string, changes []workspace.Change) error {
	for _, c := range changes {
		for _, g := range t.protected {
			if !g.Match(c.Path) {
				continue
			}
			if err := t.reg.Authorize(req.Caller, workspaceID, workspace.ActionApply, c.Path); err != nil {
				return server.Errorf(server.PermissionDenied, "path %q is protected (%s): proposing a change to it needs the apply action on it", c.Path, g).Wrap(err)
			}
		}
	}
	return nil
}

// store writes the proposal commit, a "proposed" event in its history and
// its ref, and returns the patch id.
func (t *tools) store(snap *workspace.Snapshot, changes []workspace.Change, summary string, req *server.Request) (string, error) {
	ws := snap.Workspace()
	base := snap.Revision().SHA
	tree, err := snap.WriteTree(changes)
	if err != nil {
		return "", err
	}
	bc, err := ws.ReadCommit(base)
	if err != nil {
		return "", err
	}
	id, err := ws.WriteCommit(workspace.CommitObject{
		Tree: tree, Parents: []string{base}, Author: t.opts.Author, Email: t.opts.Email,
		Time: bc.Time, Message: commitMessage(summary, req.Caller),
	})
	if err != nil {
		return "", err
	}
	// The event goes before the ref. A prune removing an older proposal of
	// the same id meanwhile then either sees the event (its compare on the
	// history fails, and it puts the patch's ref back) or removed the
	// history before it, and so the ref before this store writes it.
	t.recordProposal(ws, id, base, req)
	switch err := ws.Records().Update(patchRefPrefix+id, id, ""); err.(type) {
	case nil:
	case *workspace.RefConflict: // proposed before: the same id, the same content
	default:
		if errors.Is(err, workspace.ErrRefLocked) {
			return "", server.Errorf(server.Transient, "the same patch is being stored by another call; retry")
		}
		return "", err
	}
	return id, nil
}

// view bounds a proposal's diff for a result.
func (t *tools) view(p *proposal, diff string) PatchView {
	v := PatchView{PatchID: p.id, Base: p.base, Summary: p.summary, Files: p.stats, DiffSHA256: p.digest, DiffBytes: len(diff), Diff: diff}
	for _, f := range p.stats {
		v.Additions += f.Additions
		v.Deletions += f.Deletions
	}
	v.Diff, v.Truncated = cutDiff(diff, t.opts.MaxDiffBytes)
	return v
}

// cutDiff cuts a diff at a line boundary so that it is at most max bytes
// both as text and as a JSON string (where escapes may make it longer).
func cutDiff(diff string, max int) (string, bool) {
	cut := false
	for {
		if len(diff) > max {
			diff, cut = diff[:strings.LastIndexByte(diff[:max], '\n')+1], true
		}
		enc, _ := json.Marshal(diff)
		if len(enc) <= max || diff == "" {
			return diff, cut
		}
		max = max * 9 / 10
	}
}
