package patch

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// ApplyPatchIn is what apply_patch takes.
type ApplyPatchIn struct {
	toolkit.Selector
	// PatchID is the id generate_patch returned.
	PatchID string `json:"patch_id" jsonschema:"minLength=40,maxLength=40,pattern=^[0-9a-f]{40}$"`
	// DiffSHA256 is the diff_sha256 of the approval preview_diff returned: it must equal the patch's digest.
	DiffSHA256 string `json:"diff_sha256" jsonschema:"minLength=64,maxLength=64,pattern=^[0-9a-f]{64}$"`
	// Target is "branch" (default: point a branch at the patch commit; the working tree and HEAD are not touched) or "worktree" (write the files into the working tree).
	Target string `json:"target,omitempty" jsonschema:"enum=branch,enum=worktree"`
	// Branch is the branch to point at the patch (target branch): a new one, or an existing one whose head is the base. Default repo-mcp/<first 12 digits of patch_id>.
	Branch string `json:"branch,omitempty" jsonschema:"maxLength=200"`
	// ExpectBase, when set, must equal the patch's base.
	ExpectBase string `json:"expect_base,omitempty" jsonschema:"pattern=^[0-9a-f]{40}$"`
}

// ApplyPatchOut is what apply_patch returns.
type ApplyPatchOut struct {
	Record
	// AlreadyApplied says this patch had been applied to this target before; the record is that first apply's.
	AlreadyApplied bool `json:"already_applied"`
}

// Text renders the outcome for a reader.
func (o ApplyPatchOut) Text() string {
	again := ""
	if o.AlreadyApplied {
		again = " (already applied; nothing was written)"
	}
	if o.Target == targetWorktree {
		return fmt.Sprintf("Patch %s applied to the working tree on base %s%s.", o.PatchID, o.Base, again)
	}
	return fmt.Sprintf("Patch %s applied: branch %s points at %s (base %s)%s.", o.PatchID, o.Branch, o.Commit, o.Base, again)
}

// Confirmation is what apply_patch is about to do, for Options.Confirm.
type Confirmation struct {
	Workspace  string
	PatchID    string
	Base       string
	DiffSHA256 string
	Target     string
	Branch     string // full ref name, for target branch
	Files      []FileStat
}

func (t *tools) apply(ctx context.Context, req *server.Request, in ApplyPatchIn) (out ApplyPatchOut, err error) {
	if in.Target == "" {
		in.Target = targetBranch
	}
	var ws *workspace.Workspace
	var p *proposal
	defer func() {
		t.logApply(req, in, out, err)
		t.recordAttempt(ws, p, req, in, out, err)
	}()
	acc := toolkit.Access(req)
	w, err := t.reg.Workspace(acc, in.WorkspaceID)
	if err != nil {
		return out, err
	}
	ws = w
	loaded, err := t.proposal(ws, in.PatchID)
	if err != nil {
		return out, err
	}
	// Over the quota, the call is refused before it is recorded: p stays nil.
	if err := t.checkFailureQuota(ws, req.Caller); err != nil {
		return out, err
	}
	p = loaded
	if subtle.ConstantTimeCompare([]byte(in.DiffSHA256), []byte(p.digest)) != 1 {
		return out, server.Errorf(server.PermissionDenied, "diff_sha256 does not match patch %s: the diff approved is not this patch's", p.id).
			WithHint("call preview_diff, review the diff, and pass its approval's diff_sha256")
	}
	if in.ExpectBase != "" && in.ExpectBase != p.base {
		return out, server.Errorf(server.PreconditionFailed, "patch %s is based on %s, not on expect_base %s", p.id, p.base, in.ExpectBase)
	}
	snap, err := t.reg.Snapshot(ctx, acc, in.WorkspaceID, p.base)
	if err != nil {
		return out, err
	}
	for _, c := range p.changes { // every path needs the apply action
		for _, path := range []string{c.OldPath, c.NewPath} {
			if path != "" {
				if _, err := snap.Authorize(path, false); err != nil {
					return out, err
				}
			}
		}
	}
	done, err := t.beginApply(in.WorkspaceID)
	if err != nil {
		return out, err
	}
	defer done()
	st, err := t.state(ctx, snap, p, in.Target, in.Branch)
	if err != nil {
		return out, err
	}
	if st.record != nil {
		return ApplyPatchOut{Record: *st.record, AlreadyApplied: true}, nil
	}
	if len(st.conflicts) > 0 {
		e := server.Errorf(server.PreconditionFailed, "patch %s no longer applies to %s: %s", p.id, in.Target, describe(st.conflicts)).
			WithHint("generate the patch again on the current base, preview it, and apply that")
		e.Details = st.conflicts
		return out, e
	}
	if in.Target == targetBranch {
		if err := snap.AuthorizeRef(st.branch); err != nil {
			return out, err
		}
	}
	c := Confirmation{Workspace: in.WorkspaceID, PatchID: p.id, Base: p.base, DiffSHA256: p.digest,
		Target: in.Target, Branch: st.branch, Files: p.stats}
	if err := t.askPerson(ws, req, c); err != nil {
		return out, err
	}
	if t.opts.Confirm != nil {
		if err := t.opts.Confirm(ctx, req, c); err != nil {
			return out, err
		}
	}
	rec := &Record{PatchID: p.id, DiffSHA256: p.digest, Base: p.base, Target: in.Target, Caller: req.Caller, ApplyRequestID: req.ID, Outcome: "applied"}
	switch in.Target {
	case targetBranch:
		err = t.applyBranch(snap, p, st, rec)
	case targetWorktree:
		err = snap.ApplyWorktree(ctx, workspace.WorktreeApply{ID: p.id, Base: p.base, Files: st.files, AfterFile: t.opts.AfterWorktreeFile})
		if err == nil {
			err = writeRecord(ws, recordRef(p.id, in.Target, ""), rec)
		}
	}
	if err != nil {
		return out, err
	}
	return ApplyPatchOut{Record: *rec}, nil
}

// applyBranch moves the branch with a compare-and-swap from what state
// saw, and records the apply. An intent written before the move lets
// whoever comes next finish the record if this process dies between the
// two (workspace/intents.go).
func (t *tools) applyBranch(snap *workspace.Snapshot, p *proposal, st *targetState, rec *Record) error {
	rec.Branch, rec.Commit = st.branch, p.id
	ws := snap.Workspace()
	ref := recordRef(p.id, targetBranch, st.branch)
	blob, err := writeRecordBlob(ws, rec)
	if err != nil {
		return err
	}
	if st.current == p.id {
		return pointRecord(ws, ref, blob) // pointed there already (by hand, or by an apply whose record was lost)
	}
	started := time.Now()
	intent, err := ws.Records().Intend(workspace.Intent{Branch: st.branch, From: st.current, Commit: p.id, Record: ref, RecordBlob: blob}, started)
	if errors.Is(err, workspace.ErrIntentPending) {
		return server.Errorf(server.PreconditionFailed, "branch %s is being updated by another apply", st.branch)
	}
	if err != nil {
		return err
	}
	if err := t.moveBranch(snap, st, p.id, started); err != nil {
		if cerr := ws.Records().ClearIntent(st.branch, intent); cerr != nil {
			t.opts.Logger.Warn("clearing an apply intent", "branch", st.branch, "error", cerr) // the next reader settles it
		}
		return err
	}
	if t.opts.AfterBranchMove != nil {
		t.opts.AfterBranchMove()
	}
	if err := pointRecord(ws, ref, blob); err != nil {
		return err
	}
	return ws.Records().ClearIntent(st.branch, intent)
}

// moveBranch moves st.branch to commit unless the intent written at
// started is too old for it.
func (t *tools) moveBranch(snap *workspace.Snapshot, st *targetState, commit string, started time.Time) error {
	if err := workspace.CheckIntentYoung(started, time.Now()); err != nil {
		return err
	}
	err := snap.MoveBranch(st.branch, commit, st.current)
	var conflict *workspace.RefConflict
	switch {
	case errors.As(err, &conflict):
		return server.Errorf(server.PreconditionFailed, "branch %s moved meanwhile: it is at %q now", st.branch, conflict.Current)
	case errors.Is(err, workspace.ErrRefLocked):
		return server.Errorf(server.PreconditionFailed, "branch %s is being updated by another writer", st.branch)
	}
	return err
}

func describe(conflicts []workspace.Conflict) string {
	s := ""
	for i, c := range conflicts {
		if i == 3 {
			return s + fmt.Sprintf("; and %d more", len(conflicts)-3)
		}
		if i > 0 {
			s += "; "
		}
		if c.Path != "" {
			s += c.Path + ": "
		}
		s += c.Reason
	}
	return s
}

// logApply logs every apply attempt, whatever its outcome.
func (t *tools) logApply(req *server.Request, in ApplyPatchIn, out ApplyPatchOut, err error) {
	t.opts.Logger.Info("patch apply", "request_id", req.ID, "caller", req.Caller, "workspace", in.WorkspaceID,
		"patch_id", in.PatchID, "diff_sha256", in.DiffSHA256, "target", in.Target, "branch", out.Branch, "outcome", outcome(out, err))
}

// confirmKey names apply_patch's question to the person.
const confirmKey = "apply"

// askPerson asks the person behind the client, when the client can be
// asked, to confirm exactly this apply. The question and the saved state
// name the digest; the framework binds the answer to this call's
// arguments and lets it expire, and askPerson takes each answer once
// (answers.go): decline, then accept, applies nothing. When the client
// cannot be asked, the digest in the arguments is the confirmation.
func (t *tools) askPerson(ws *workspace.Workspace, req *server.Request, c Confirmation) error {
	if !req.CanAsk() {
		return nil
	}
	a, ok := req.Answer(confirmKey)
	if !ok {
		return server.Ask(c.DiffSHA256, map[string]server.Question{confirmKey: {Message: c.message()}})
	}
	if req.State() != c.DiffSHA256 {
		return server.Errorf(server.PermissionDenied, "the confirmation was given for another diff; nothing was applied")
	}
	err := claimAnswer(ws, c.PatchID, req.AnswerID(), a.Action, t.opts.Now())
	if answered, ok := errors.AsType[*errAnswered](err); ok {
		return server.Errorf(server.PermissionDenied, "this question about patch %s was answered already (%s); an answer counts once, and nothing was applied", c.PatchID, answered.action).
			WithHint("call apply_patch again without requestState: the person is asked anew")
	}
	if err != nil {
		return err
	}
	if !a.Accepted() {
		return server.Errorf(server.PermissionDenied, "the person did not confirm applying patch %s (%s); nothing was applied", c.PatchID, a.Action)
	}
	return nil
}

// message is the question put to the person.
func (c Confirmation) message() string {
	var b strings.Builder
	where := "the working tree"
	if c.Target == targetBranch {
		where = "branch " + c.Branch
	}
	fmt.Fprintf(&b, "Apply patch %s to %s of workspace %s?\nBase %s, diff_sha256 %s\n", c.PatchID, where, c.Workspace, c.Base, c.DiffSHA256)
	for _, f := range c.Files {
		name := f.Path
		if f.OldPath != "" {
			name = f.OldPath + " -> " + f.Path
		}
		fmt.Fprintf(&b, "  %s %s (+%d -%d)\n", f.Status, name, f.Additions, f.Deletions)
	}
	return b.String()
}
