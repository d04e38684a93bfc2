package patch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Every proposal and every failed apply leaves refs and objects in the
// repository, so each caller has two quotas in each workspace. Open
// proposals (Options.MaxOpenProposals) are the proposals it made that are
// still there and not applied: an applied proposal no longer counts, and
// `repo-mcp prune` deletes the stale ones. Failed applies
// (Options.MaxFailedApplies) are the failed apply_patch calls it made that
// are still on record: each is kept in the patch's history (history.go)
// and in the caller's log of failures,
//
//	refs/repo-mcp/failed/<caller key>   a chain of commits, one a failure, as a history is
//
// whose head's seq is the count; `repo-mcp prune` deletes a log whose
// newest failure is older than its age. A call over a quota is refused
// before it writes anything (a proposal at the quota even when it would
// only name one the caller has already: telling needs its objects
// written), and is not recorded itself.
const failedRefPrefix = "failed/" // under workspace.RecordPrefix

// The default quotas, per caller and workspace.
const (
	DefaultMaxOpenProposals = 100
	DefaultMaxFailedApplies = 100
)

// failedRef is the ref of caller's log of failures. Identities may hold
// any character; the ref names a digest of it, and the events the caller.
func failedRef(caller string) string {
	sum := sha256.Sum256([]byte(caller))
	return failedRefPrefix + hex.EncodeToString(sum[:16])
}

// overQuota is the error of a call over one of the caller's quotas.
func overQuota(quota string, limit int, ws, free string) error {
	e := server.Errorf(server.PermissionDenied, "the caller has %d %s in workspace %q, its quota; nothing was written", limit, quota, ws).
		WithHint(free)
	e.Details = map[string]any{"quota": strings.ReplaceAll(quota, " ", "_"), "limit": limit}
	return e
}

// checkProposalQuota refuses a new proposal by the caller when it has
// Options.MaxOpenProposals open in ws already.
func (t *tools) checkProposalQuota(ws *workspace.Workspace, caller string) error {
	limit := t.opts.MaxOpenProposals
	if limit < 0 {
		return nil
	}
	n, err := t.openProposals(ws, caller)
	if err != nil {
		return err
	}
	if n >= limit {
		return overQuota("open proposals", limit, ws.ID(),
			"apply the proposals you mean to keep; the others are deleted once stale (repo-mcp prune --older-than, an operator's command)")
	}
	return nil
}

// openProposals counts the proposals of caller in ws that have no apply
// record. A proposal's author is in its commit, which never changes, so
// it is read once per process.
func (t *tools) openProposals(ws *workspace.Workspace, caller string) (int, error) {
	refs, err := ws.Records().List("") // one pass over the records for both kinds
	if err != nil {
		return 0, err
	}
	applied := map[string]bool{}
	var proposals []string
	for _, r := range refs {
		if rest, ok := strings.CutPrefix(r.Name, appliedRefPrefix); ok {
			id, _, _ := strings.Cut(rest, "/")
			applied[id] = true
		} else if id, ok := strings.CutPrefix(r.Name, patchRefPrefix); ok && isSHA(id) {
			proposals = append(proposals, id)
		}
	}
	n := 0
	for _, id := range proposals {
		if applied[id] {
			continue
		}
		author, err := t.proposalAuthor(ws, id)
		if err != nil {
			return 0, err
		}
		if author == caller {
			n++
		}
	}
	return n, nil
}

// proposalAuthor returns the caller that proposed patch id.
func (t *tools) proposalAuthor(ws *workspace.Workspace, id string) (string, error) {
	key := ws.ID() + "/" + id
	t.mu.Lock()
	author, ok := t.authors[key]
	t.mu.Unlock()
	if ok {
		return author, nil
	}
	c, err := ws.ReadCommit(id)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(c.Message) {
		if v, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "Proposed-By: "); ok {
			author = v
		}
	}
	t.mu.Lock()
	if len(t.authors) >= maxCachedAuthors {
		clear(t.authors)
	}
	t.authors[key] = author
	t.mu.Unlock()
	return author, nil
}

// maxCachedAuthors bounds the proposals whose author is remembered: a
// quota's count reads the commits of the rest again.
const maxCachedAuthors = 1 << 16

// checkFailureQuota refuses an apply by the caller when it has
// Options.MaxFailedApplies failures on record in ws.
func (t *tools) checkFailureQuota(ws *workspace.Workspace, caller string) error {
	limit := t.opts.MaxFailedApplies
	if limit < 0 {
		return nil
	}
	head, err := ws.Records().Read(failedRef(caller))
	if err != nil || head == "" {
		return err
	}
	e, err := readEvent(ws, head)
	if err != nil {
		return err
	}
	if e.Seq >= limit {
		return overQuota("failed applies", limit, ws.ID(),
			"fix what made the applies fail (preview_diff says whether a patch applies); the record of failures is cleared once its newest is stale (repo-mcp prune --older-than, an operator's command)")
	}
	return nil
}

// recordFailure adds a failed apply to the caller's log of failures.
func recordFailure(ws *workspace.Workspace, e event, now time.Time) error {
	return appendEventTo(ws, failedRef(e.Caller), e.PatchID, e, now)
}

// pruneFailures deletes the logs of failures whose newest failure is older
// than olderThan at now, with a compare on the value read: a log that got
// a failure meanwhile is kept.
func pruneFailures(ws *workspace.Workspace, opts PruneOptions) error {
	logs, err := ws.Records().List(failedRefPrefix)
	if err != nil {
		return err
	}
	for _, r := range logs {
		head, err := ws.ReadCommit(r.SHA)
		if err != nil {
			return fmt.Errorf("reading the log of failures %s: %w", r.Name, err)
		}
		if opts.Now.Sub(head.Time) < opts.OlderThan || opts.DryRun {
			continue
		}
		err = ws.Records().Delete(r.Name, r.SHA)
		if _, moved := errors.AsType[*workspace.RefConflict](err); moved || errors.Is(err, workspace.ErrRefLocked) {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
