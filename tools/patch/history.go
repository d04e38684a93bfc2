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

// Each patch has a history in the repository beside it: a chain of
// commits, newest first, each carrying one event in its message,
//
//	refs/repo-mcp/history/<patch_id>
//
// so that `git log refs/repo-mcp/history/<patch_id>` reads it. The
// commits' tree is empty, and their times are the events' own: the newest
// one is the patch's age, which `repo-mcp prune` reads (the proposal
// commit cannot say it: its times are the base's, so that the same change
// proposed twice has the same id).
//
// The events are:
//
//   - "proposed by <caller>": generate_patch stored the patch, or the
//     same change was proposed again (the same id: a new event);
//   - "apply attempt <n>: <outcome>": an apply_patch call that reached the
//     patch, whatever its outcome. A question round (the person is being
//     asked) is not an outcome and is not kept; nor is a call refused
//     before it reached the patch (an unknown workspace or patch, a
//     caller without the apply action, a read-only workspace): the
//     repository is written only where the caller may apply.
//
// The message's body is the event as JSON, whose seq and attempts fields
// carry the counts: the next event is numbered from the head's record
// alone, whatever kind the head is.
const historyRefPrefix = "history/" // under workspace.RecordPrefix

// maxEvents bounds one patch's history; later events are only logged.
const maxEvents = 1000

// The kinds of event.
const (
	eventProposed = "proposed"
	eventApply    = "apply"
)

// event is one entry of a patch's history: the JSON body of its commit.
type event struct {
	Event    string `json:"event"`    // eventProposed or eventApply
	Seq      int    `json:"seq"`      // this event's number in the history, from 1
	Attempts int    `json:"attempts"` // apply attempts so far, this event included
	PatchID  string `json:"patch_id"`
	// Base is the commit the patch was made on (proposed).
	Base string `json:"base,omitempty"`
	// DiffSHA256 is the digest as the caller gave it (apply).
	DiffSHA256 string `json:"diff_sha256,omitempty"`
	Target     string `json:"target,omitempty"`
	Branch     string `json:"branch,omitempty"`
	Caller     string `json:"caller"`
	RequestID  string `json:"request_id"`
	// Outcome is applied, already_applied, or the error class (apply).
	Outcome string `json:"outcome,omitempty"`
	// Error is the message the caller was given (apply).
	Error string `json:"error,omitempty"`
	Time  string `json:"time"`
}

// subject is the first line of the event's commit message.
func (e *event) subject() string {
	if e.Event == eventApply {
		return fmt.Sprintf("apply attempt %d: %s", e.Attempts, e.Outcome)
	}
	return "proposed by " + oneLine(e.Caller)
}

// oneLine quotes s when it would not read as one plain line.
func oneLine(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsGraphic(r) || r == '"' }) {
		return strconv.Quote(s)
	}
	return s
}

var errHistoryFull = errors.New("the patch's history is full")

// appendEvent adds e, at time now, to the history of patch id in ws.
func appendEvent(ws *workspace.Workspace, id string, e event, now time.Time) error {
	return appendEventTo(ws, historyRefPrefix+id, id, e, now)
}

// appendEventTo adds e, an event of patch id at time now, to the chain of
// events at ref: a patch's history, or a caller's log of failures
// (quota.go).
func appendEventTo(ws *workspace.Workspace, ref, id string, e event, now time.Time) error {
	tree, err := ws.WriteEmptyTree()
	if err != nil {
		return err
	}
	e.PatchID, e.Time = id, now.Format(time.RFC3339Nano)
	for range 8 { // concurrent events race for the ref; each retries on the new head
		prev, err := ws.Records().Read(ref)
		if err != nil {
			return err
		}
		var head event
		if prev != "" {
			if head, err = readEvent(ws, prev); err != nil {
				return err
			}
		}
		e.Seq, e.Attempts = head.Seq+1, head.Attempts
		if e.Event == eventApply {
			e.Attempts++
		}
		if e.Seq > maxEvents {
			return errHistoryFull
		}
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		sha, err := ws.WriteCommit(workspace.CommitObject{
			Tree: tree, Parents: parentsOf(prev), Author: "repo-mcp", Email: "repo-mcp@localhost", Time: now,
			Message: fmt.Sprintf("%s\n\n%s\n", e.subject(), data),
		})
		if err != nil {
			return err
		}
		err = ws.Records().Update(ref, sha, prev)
		if _, raced := errors.AsType[*workspace.RefConflict](err); raced || errors.Is(err, workspace.ErrRefLocked) {
			continue
		}
		return err
	}
	return errors.New("too many concurrent writers of the patch's history")
}

func parentsOf(prev string) []string {
	if prev == "" {
		return nil
	}
	return []string{prev}
}

// readEvent reads the event of history commit sha.
func readEvent(ws *workspace.Workspace, sha string) (event, error) {
	c, err := ws.ReadCommit(sha)
	if err != nil {
		return event{}, err
	}
	_, body, _ := strings.Cut(c.Message, "\n\n")
	var e event
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Seq < 1 {
		return event{}, fmt.Errorf("history commit %s holds no event record: %v", sha, err)
	}
	return e, nil
}

// recordProposal keeps a "proposed" event for patch id (see above). A
// failure is logged: the proposal itself is stored.
func (t *tools) recordProposal(ws *workspace.Workspace, id, base string, req *server.Request) {
	e := event{Event: eventProposed, Base: base, Caller: req.Caller, RequestID: req.ID}
	if err := appendEvent(ws, id, e, t.opts.Now().UTC()); err != nil {
		t.opts.Logger.Error("recording a proposal", "patch_id", id, "request_id", req.ID, "error", err)
	}
}

// recordAttempt keeps the outcome of one apply_patch call (see above).
func (t *tools) recordAttempt(ws *workspace.Workspace, p *proposal, req *server.Request, in ApplyPatchIn, out ApplyPatchOut, err error) {
	if ws == nil || p == nil || server.IsAsk(err) {
		return
	}
	e := event{Event: eventApply, DiffSHA256: in.DiffSHA256, Target: in.Target, Branch: out.Branch,
		Caller: req.Caller, RequestID: req.ID, Outcome: outcome(out, err)}
	// The message the caller saw, never an internal error's text, which
	// stays in the log.
	if se, ok := errors.AsType[*server.Error](err); ok && se.Class != server.Internal {
		e.Error = se.Message
	}
	now := t.opts.Now().UTC()
	if werr := appendEvent(ws, p.id, e, now); werr != nil {
		t.opts.Logger.Error("recording an apply attempt", "patch_id", p.id, "request_id", req.ID, "error", werr)
	}
	if err == nil {
		return
	}
	// A failure counts toward the caller's quota of failed applies too.
	e.PatchID = p.id
	if werr := recordFailure(ws, e, now); werr != nil {
		t.opts.Logger.Error("recording a failed apply", "patch_id", p.id, "request_id", req.ID, "error", werr)
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
