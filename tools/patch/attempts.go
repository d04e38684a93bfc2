package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Every apply_patch call on a patch, whatever its outcome, is kept in the
// repository beside the patch, as a chain of commits that carry one
// attempt each in their message, newest first:
//
//	refs/repo-mcp/attempts/<patch_id>
//
// so that `git log refs/repo-mcp/attempts/<patch_id>` reads the patch's
// history. The commits' tree is empty. A question round (the person is
// being asked) is not an outcome and is not kept; nor is a call refused
// before it reached the patch (an unknown workspace or patch, a caller
// without the apply action, a read-only workspace): the repository is
// written only where the caller may apply.
const attemptRefPrefix = "refs/repo-mcp/attempts/"

// maxAttempts bounds one patch's chain; later attempts are only logged.
const maxAttempts = 1000

// attempt is the record of one apply_patch call.
type attempt struct {
	PatchID    string `json:"patch_id"`
	DiffSHA256 string `json:"diff_sha256"` // as the caller gave it
	Target     string `json:"target"`
	Branch     string `json:"branch,omitempty"`
	Caller     string `json:"caller"`
	RequestID  string `json:"request_id"`
	Outcome    string `json:"outcome"`         // applied, already_applied, or the error class
	Error      string `json:"error,omitempty"` // the message the caller was given
	Time       string `json:"time"`
}

var errTooManyAttempts = errors.New("the patch's attempt record is full")

// appendAttempt adds a to the chain of patch id in ws.
func appendAttempt(ws *workspace.Workspace, id string, a attempt, now time.Time) error {
	ref := attemptRefPrefix + id
	tree, err := ws.WriteEmptyTree()
	if err != nil {
		return err
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	for range 8 { // concurrent attempts race for the ref; each retries on the new head
		prev, err := ws.ReadRef(ref)
		if err != nil {
			return err
		}
		n, parents := 1, []string(nil)
		if prev != "" {
			c, err := ws.ReadCommit(prev)
			if err != nil {
				return err
			}
			n, parents = attemptNumber(c.Message)+1, []string{prev}
		}
		if n > maxAttempts {
			return errTooManyAttempts
		}
		sha, err := ws.WriteCommit(workspace.CommitObject{
			Tree: tree, Parents: parents, Author: "repo-mcp", Email: "repo-mcp@localhost", Time: now,
			Message: fmt.Sprintf("apply attempt %d: %s\n\n%s\n", n, a.Outcome, data),
		})
		if err != nil {
			return err
		}
		err = ws.UpdateRef(ref, sha, prev)
		if _, raced := errors.AsType[*workspace.RefConflict](err); raced || errors.Is(err, workspace.ErrRefLocked) {
			continue
		}
		return err
	}
	return errors.New("too many concurrent writers of the attempt record")
}

// attemptNumber reads n from a message "apply attempt n: ...".
func attemptNumber(message string) int {
	rest, _ := strings.CutPrefix(message, "apply attempt ")
	digits, _, _ := strings.Cut(rest, ":")
	n, _ := strconv.Atoi(digits)
	return n
}

// recordAttempt keeps the outcome of one apply_patch call (see above).
func (t *tools) recordAttempt(ws *workspace.Workspace, p *proposal, req *server.Request, in ApplyPatchIn, out ApplyPatchOut, err error) {
	if ws == nil || p == nil || server.IsAsk(err) {
		return
	}
	a := attempt{PatchID: p.id, DiffSHA256: in.DiffSHA256, Target: in.Target, Branch: out.Branch,
		Caller: req.Caller, RequestID: req.ID, Outcome: outcome(out, err)}
	// The message the caller saw, never an internal error's text, which
	// stays in the log.
	if e, ok := errors.AsType[*server.Error](err); ok && e.Class != server.Internal {
		a.Error = e.Message
	}
	now := time.Now().UTC()
	a.Time = now.Format(time.RFC3339Nano)
	if err := appendAttempt(ws, p.id, a, now); err != nil {
		t.opts.Logger.Error("recording an apply attempt", "patch_id", p.id, "request_id", req.ID, "error", err)
	}
}

// outcome names how an apply_patch call ended.
func outcome(out ApplyPatchOut, err error) string {
	switch {
	case server.IsAsk(err):
		return "input_required" // a question round, as the audit line says
	case err != nil:
		return string(server.ClassOf(err))
	case out.AlreadyApplied:
		return "already_applied"
	}
	return "applied"
}
