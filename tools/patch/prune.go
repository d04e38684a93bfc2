package patch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// PruneOptions say which proposals Prune deletes.
type PruneOptions struct {
	// OlderThan is the age past which a patch never applied is stale: the
	// time since the newest event of its history. It must be positive.
	OlderThan time.Duration
	// DryRun decides about every patch as Prune would, and deletes nothing.
	DryRun bool
	// Now is the time ages are measured at. Default: time.Now().
	Now time.Time
}

// Verdict says what Prune did with one patch.
type Verdict string

// The verdicts of Prune.
const (
	Pruned         Verdict = "pruned"      // its refs were deleted (with DryRun: would be)
	KeptApplied    Verdict = "applied"     // it has an apply record
	KeptFresh      Verdict = "fresh"       // its newest event is younger than OlderThan
	KeptAgeUnknown Verdict = "age unknown" // it has no history (proposed before histories were kept)
	KeptChanged    Verdict = "changed"     // its refs moved while Prune ran: a new event, another prune
	PruneFailed    Verdict = "failed"      // Err says why; whatever was deleted is in Err too
)

// PruneResult is what Prune did with one patch.
type PruneResult struct {
	PatchID string
	Verdict Verdict
	// Age is the time since the newest event of the patch's history, when
	// it has one.
	Age time.Duration
	Err error
}

// Prune deletes the stale proposals of ws: for each patch with a proposal
// or a history ref, unless an apply record of it exists, it deletes
// refs/repo-mcp/patches/<id> and refs/repo-mcp/history/<id> when the
// history's newest event is older than opts.OlderThan. A patch without a
// history is kept: its age is unknown. Apply records are never deleted;
// nor are the objects, which git gc collects once nothing reaches them.
// Ledgers of answers (answers.go) whose answers have all expired are
// deleted too, whatever their patch's verdict, and callers' logs of
// failed applies (quota.go) whose newest failure is older than OlderThan.
//
// Each ref is deleted with a compare on the value Prune read, the proposal
// first: a history that got a new event meanwhile (a proposal of the same
// change, an apply attempt) fails its compare, and Prune puts the proposal
// back and keeps the patch. generate_patch writes its event before the
// proposal's ref for this reason (see tools.store).
//
// The results are in patch id order, one per patch. The error is for what
// stopped Prune as a whole: a read-only workspace, refs it could not list,
// ctx ended.
func Prune(ctx context.Context, ws *workspace.Workspace, opts PruneOptions) ([]PruneResult, error) {
	if ws.ReadOnly() {
		return nil, fmt.Errorf("workspace %q is read-only", ws.ID())
	}
	if opts.OlderThan <= 0 {
		return nil, fmt.Errorf("the age to prune at must be positive, not %v", opts.OlderThan)
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	candidates, err := listCandidates(ws)
	if err != nil {
		return nil, err
	}
	var results []PruneResult
	for _, c := range candidates {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		r := c.prune(ws, opts)
		if r.Err != nil {
			r.Verdict = PruneFailed
		}
		results = append(results, r)
	}
	if _, err := pruneAnswers(ws, opts.Now, opts.DryRun); err != nil {
		return results, fmt.Errorf("pruning the ledgers of answers: %w", err)
	}
	if err := pruneFailures(ws, opts); err != nil {
		return results, fmt.Errorf("pruning the logs of failed applies: %w", err)
	}
	return results, nil
}

// candidate is what Prune read of one patch's refs.
type candidate struct {
	id      string
	patch   string // the proposal ref's value, or ""
	history string // the history ref's value, or ""
	applied bool   // an apply record exists
}

// listCandidates reads the refs of every patch with a proposal or a
// history (a history alone is left when a prune stopped between the two
// deletions). Refs under those prefixes whose name is not a patch id are
// not the tools' and are left out.
func listCandidates(ws *workspace.Workspace) ([]*candidate, error) {
	byID := map[string]*candidate{}
	get := func(id string) *candidate {
		if !isSHA(id) {
			return &candidate{} // dropped
		}
		if byID[id] == nil {
			byID[id] = &candidate{id: id}
		}
		return byID[id]
	}
	refs, err := ws.Records().List(patchRefPrefix)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		get(strings.TrimPrefix(r.Name, patchRefPrefix)).patch = r.SHA
	}
	if refs, err = ws.Records().List(historyRefPrefix); err != nil {
		return nil, err
	}
	for _, r := range refs {
		get(strings.TrimPrefix(r.Name, historyRefPrefix)).history = r.SHA
	}
	if refs, err = ws.Records().List(appliedRefPrefix); err != nil {
		return nil, err
	}
	for _, r := range refs {
		id, _, _ := strings.Cut(strings.TrimPrefix(r.Name, appliedRefPrefix), "/")
		if c := byID[id]; c != nil {
			c.applied = true
		}
	}
	var out []*candidate
	for _, c := range byID {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *candidate) int { return strings.Compare(a.id, b.id) })
	return out, nil
}

// prune decides about one patch and, when it is stale, deletes its refs.
func (c *candidate) prune(ws *workspace.Workspace, opts PruneOptions) PruneResult {
	r := PruneResult{PatchID: c.id}
	switch {
	case c.applied:
		r.Verdict = KeptApplied
		return r
	case c.history == "":
		r.Verdict = KeptAgeUnknown
		return r
	}
	head, err := ws.ReadCommit(c.history)
	if err != nil {
		r.Err = fmt.Errorf("reading its history: %w", err)
		return r
	}
	r.Age = opts.Now.Sub(head.Time)
	switch {
	case r.Age < opts.OlderThan:
		r.Verdict = KeptFresh
		return r
	case opts.DryRun:
		r.Verdict = Pruned
		return r
	}
	r.Verdict, r.Err = c.delete(ws)
	return r
}

// delete deletes the patch's proposal, then its history, each with a
// compare on the value read; a history that moved meanwhile gets its
// proposal back.
func (c *candidate) delete(ws *workspace.Workspace) (Verdict, error) {
	patchRef, historyRef := patchRefPrefix+c.id, historyRefPrefix+c.id
	if c.patch != "" {
		if err := ws.Records().Delete(patchRef, c.patch); err != nil {
			return changedOr(err, "deleting its proposal")
		}
	}
	err := ws.Records().Delete(historyRef, c.history)
	if err == nil {
		return Pruned, nil
	}
	if c.patch != "" {
		// Whatever kept the history, the proposal goes back as it was; a
		// generate_patch may have put it back already.
		restore := ws.Records().Update(patchRef, c.patch, "")
		if _, ok := errors.AsType[*workspace.RefConflict](restore); restore != nil && !ok {
			return PruneFailed, fmt.Errorf("deleting its history: %w; putting back its proposal (git update-ref %s %s): %w",
				err, patchRef, c.patch, restore)
		}
	}
	return changedOr(err, "deleting its history")
}

// changedOr tells a ref that moved (or is locked) meanwhile, which keeps
// the patch, from a failure.
func changedOr(err error, doing string) (Verdict, error) {
	if _, ok := errors.AsType[*workspace.RefConflict](err); ok || errors.Is(err, workspace.ErrRefLocked) {
		return KeptChanged, nil
	}
	return PruneFailed, fmt.Errorf("%s: %w", doing, err)
}
