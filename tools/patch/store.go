package patch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Proposals, their histories and apply records live in the repository
// itself, so they survive restarts and every replica serving the
// repository sees them:
//
//	refs/repo-mcp/patches/<patch_id>              the proposal: a commit whose parent is the base
//	refs/repo-mcp/history/<patch_id>              its history: proposals and apply attempts (history.go)
//	refs/repo-mcp/applied/<patch_id>/<target key>  a blob holding the apply record (JSON)
//
// The patch id is the proposal commit's SHA. The commit is deterministic
// (its times are the base's), so the same change proposed twice on the
// same base by the same caller has the same id; when it was proposed is
// in the history. `repo-mcp prune` deletes the proposal and history refs
// of patches never applied whose history is old; apply records stay.
const (
	patchRefPrefix   = "patches/" // names relative to workspace.RecordPrefix
	appliedRefPrefix = "applied/"
)

// proposal is a stored patch, loaded and rendered.
type proposal struct {
	id      string
	base    string
	summary string
	changes []*fileChange
	diff    string // canonical: every file, canonicalContext lines of context
	digest  string
	stats   []FileStat
}

// commitMessage is the message of a proposal commit.
func commitMessage(summary, caller string) string {
	if summary == "" {
		summary = "proposed change"
	}
	return fmt.Sprintf("repo-mcp patch: %s\n\nProposed-By: %s\n", summary, caller)
}

// proposal returns patch id of ws: it must be under the proposals' refs
// now; its rendering comes from a cache (a proposal is immutable: its id is
// its commit's hash).
func (t *tools) proposal(ws *workspace.Workspace, id string) (*proposal, error) {
	if !isSHA(id) {
		return nil, server.Errorf(server.InvalidInput, "patch_id must be 40 lowercase hex digits")
	}
	ref, err := ws.Records().Read(patchRefPrefix + id)
	if err != nil {
		return nil, err
	}
	if ref != id {
		return nil, server.Errorf(server.NotFound, "no patch %s in workspace %q", id, ws.ID()).
			WithHint("patch ids belong to the workspace they were generated in; call generate_patch there")
	}
	key := ws.ID() + "/" + id
	t.mu.Lock()
	p, ok := t.cache[key]
	t.mu.Unlock()
	if ok {
		return p, nil
	}
	if p, err = loadProposal(ws, id, t.opts); err != nil {
		return nil, err
	}
	t.mu.Lock()
	if len(t.cache) >= maxCachedProposals {
		clear(t.cache)
	}
	t.cache[key] = p
	t.mu.Unlock()
	return p, nil
}

const maxCachedProposals = 64

// loadProposal reads proposal commit id and renders its canonical diff.
func loadProposal(ws *workspace.Workspace, id string, opts Options) (*proposal, error) {
	c, err := ws.ReadCommit(id)
	if err != nil {
		return nil, err
	}
	if len(c.Parents) != 1 {
		return nil, server.Errorf(server.Internal, "patch %s is not a single-parent commit", id)
	}
	p := &proposal{id: id, base: c.Parents[0]}
	subject, _, _ := strings.Cut(c.Message, "\n")
	p.summary = strings.TrimPrefix(subject, "repo-mcp patch: ")
	if p.changes, err = loadChanges(ws, p.base, id, opts); err != nil {
		return nil, err
	}
	if p.diff, p.stats, err = renderDiff(p.changes, canonicalContext); err != nil {
		return nil, server.Errorf(server.Internal, "rendering the diff failed").Wrap(err)
	}
	p.digest = digest(p.diff)
	return p, nil
}

// loadChanges lists the files that differ between base and the patch
// commit, with their contents. A file deleted and one added with the same
// blob are a rename.
func loadChanges(ws *workspace.Workspace, base, id string, opts Options) ([]*fileChange, error) {
	diffs, err := ws.DiffCommits(base, id)
	if err != nil {
		return nil, err
	}
	var out []*fileChange
	added := map[string][]*fileChange{} // by blob
	for _, d := range diffs {
		for _, m := range []uint32{d.OldMode, d.NewMode} {
			if m != 0 && m != workspace.ModeFile && m != workspace.ModeExecutable && m != 0o100664 {
				return nil, server.Errorf(server.InvalidInput, "patch %s changes %q, which is not a regular file", id, d.Path)
			}
		}
		c := &fileChange{OldMode: d.OldMode, NewMode: d.NewMode, OldSHA: d.OldSHA, NewSHA: d.NewSHA}
		if d.OldSHA != "" {
			c.OldPath = d.Path
		}
		if d.NewSHA != "" {
			c.NewPath = d.Path
		}
		if c.OldPath == "" {
			added[c.NewSHA] = append(added[c.NewSHA], c)
		}
		out = append(out, c)
	}
	var renamed []*fileChange
	for _, c := range out {
		if c.NewPath != "" || len(added[c.OldSHA]) == 0 {
			continue
		}
		to := added[c.OldSHA][0]
		added[c.OldSHA] = added[c.OldSHA][1:]
		c.NewPath, c.NewMode, c.NewSHA = to.NewPath, to.NewMode, to.NewSHA
		renamed = append(renamed, to)
	}
	out = slices.DeleteFunc(out, func(c *fileChange) bool { return slices.Contains(renamed, c) })
	for _, c := range out {
		if c.OldSHA != "" && c.OldSHA != c.NewSHA {
			if c.Old, err = ws.ReadBlob(c.OldSHA, opts.MaxFileBytes); err != nil {
				return nil, err
			}
		}
		if c.NewSHA != "" && c.OldSHA != c.NewSHA {
			if c.New, err = ws.ReadBlob(c.NewSHA, opts.MaxFileBytes); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(out, func(a, b *fileChange) int { return strings.Compare(a.path(), b.path()) })
	return out, nil
}

// Record is the record of one apply, kept in the repository and returned
// by apply_patch.
type Record struct {
	// PatchID is the patch applied.
	PatchID string `json:"patch_id"`
	// DiffSHA256 is the digest the caller approved.
	DiffSHA256 string `json:"diff_sha256"`
	// Base is the commit the patch was made on.
	Base string `json:"base"`
	// Target is "branch" or "worktree".
	Target string `json:"target"`
	// Branch is the full name of the branch moved (target branch).
	Branch string `json:"branch,omitempty"`
	// Commit is the commit the branch points at after the apply (target branch).
	Commit string `json:"commit,omitempty"`
	// Caller is the identity that applied the patch.
	Caller string `json:"caller"`
	// ApplyRequestID is the request_id of the call that applied the patch (the first one, for a repeat).
	ApplyRequestID string `json:"apply_request_id"`
	// Outcome is "applied".
	Outcome string `json:"outcome"`
	// Time is when the patch was applied (RFC 3339, UTC).
	Time string `json:"time"`
}

// recordRef is where the record of applying id to a target lives.
func recordRef(id, target, branch string) string {
	if target == targetWorktree {
		return appliedRefPrefix + id + "/worktree"
	}
	sum := sha256.Sum256([]byte(branch))
	return appliedRefPrefix + id + "/branch-" + hex.EncodeToString(sum[:8])
}

func readRecord(ws *workspace.Workspace, ref string) (*Record, error) {
	sha, err := ws.Records().Read(ref)
	if err != nil || sha == "" {
		return nil, err
	}
	data, err := ws.ReadBlob(sha, 1<<16)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, server.Errorf(server.Internal, "apply record %s is corrupt", ref).Wrap(err)
	}
	return &r, nil
}

func writeRecord(ws *workspace.Workspace, ref string, r *Record) error {
	blob, err := writeRecordBlob(ws, r)
	if err != nil {
		return err
	}
	return pointRecord(ws, ref, blob)
}

// writeRecordBlob stamps r with the time and stores it, for pointRecord.
func writeRecordBlob(ws *workspace.Workspace, r *Record) (string, error) {
	r.Time = time.Now().UTC().Format(time.RFC3339)
	data, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	return ws.WriteBlob(data)
}

// pointRecord points ref at the record blob. Someone who settled this
// apply's intent (workspace/intents.go) may have pointed it already, or be
// pointing it now: a held lock is waited out, briefly, since whoever holds
// it writes this same blob.
func pointRecord(ws *workspace.Workspace, ref, blob string) error {
	err := ws.Records().Update(ref, blob, "")
	for try := 0; errors.Is(err, workspace.ErrRefLocked) && try < 50; try++ {
		time.Sleep(10 * time.Millisecond)
		err = ws.Records().Update(ref, blob, "")
	}
	if conflict, ok := errors.AsType[*workspace.RefConflict](err); ok && conflict.Current == blob {
		return nil
	}
	if err != nil {
		return server.Errorf(server.Internal, "recording the apply failed").Wrap(err)
	}
	return nil
}

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
