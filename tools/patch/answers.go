package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// apply_patch's question is answered once. The requestState that carries
// the answer stays valid for server.QuestionLifetime, so a client could
// present it again with another answer (decline, then accept), to this
// replica or another. Before acting on an answer, apply_patch claims its
// id in the patch's ledger of answers,
//
//	refs/repo-mcp/answers/<patch_id>   a blob: the answers taken, with when each expires
//
// with a compare-and-swap on the ref, so that of two answers to one
// question, whichever replica gets them, exactly one is taken. The ledger
// lives in the repository because that is what replicas share (see
// store.go); it keeps an answer only until its question expires, so it
// stays small, and `repo-mcp prune` deletes a ledger whose answers have
// all expired.
const answersRefPrefix = "answers/" // under workspace.RecordPrefix

// ledger is the content of a patch's ledger of answers.
type ledger struct {
	Answers []takenAnswer `json:"answers"`
}

// takenAnswer is one answer apply_patch acted on.
type takenAnswer struct {
	ID      string `json:"id"`      // server.Request.AnswerID
	Action  string `json:"action"`  // accept, decline or cancel
	Expires int64  `json:"expires"` // Unix seconds: the question's expiry, at the latest
}

// errAnswered refuses an answer to a question already answered.
type errAnswered struct{ action string }

func (e *errAnswered) Error() string { return "the question was answered already (" + e.action + ")" }

// claimAnswer takes the answer id (action) to a question about patch id,
// at time now, or refuses it when the question was answered already.
func claimAnswer(ws *workspace.Workspace, patchID, id, action string, now time.Time) error {
	ref := answersRefPrefix + patchID
	for range 8 { // concurrent answers race for the ref; each retries on the new value
		old, l, err := readLedger(ws, ref)
		if err != nil {
			return err
		}
		l.Answers = slices.DeleteFunc(l.Answers, func(a takenAnswer) bool { return a.Expires < now.Unix() })
		if i := slices.IndexFunc(l.Answers, func(a takenAnswer) bool { return a.ID == id }); i >= 0 {
			return &errAnswered{action: l.Answers[i].Action}
		}
		l.Answers = append(l.Answers, takenAnswer{ID: id, Action: action, Expires: now.Add(server.QuestionLifetime).Unix()})
		data, err := json.Marshal(l)
		if err != nil {
			return err
		}
		sha, err := ws.WriteBlob(data)
		if err != nil {
			return err
		}
		err = ws.Records().Update(ref, sha, old)
		if _, raced := errors.AsType[*workspace.RefConflict](err); raced || errors.Is(err, workspace.ErrRefLocked) {
			continue
		}
		return err
	}
	return server.Errorf(server.Transient, "other answers about patch %s are being recorded; retry", patchID)
}

// readLedger reads the ledger at ref: its value ("" when there is none)
// and its answers.
func readLedger(ws *workspace.Workspace, ref string) (string, ledger, error) {
	var l ledger
	sha, err := ws.Records().Read(ref)
	if err != nil || sha == "" {
		return sha, l, err
	}
	data, err := ws.ReadBlob(sha, 1<<20)
	if err != nil {
		return "", l, err
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return "", l, fmt.Errorf("the ledger of answers %s is corrupt: %w", ref, err)
	}
	return sha, l, nil
}

// pruneAnswers deletes the ledgers of ws whose answers have all expired
// at now: their questions can no longer be answered. It returns how many
// it deleted.
func pruneAnswers(ws *workspace.Workspace, now time.Time, dryRun bool) (int, error) {
	refs, err := ws.Records().List(answersRefPrefix)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range refs {
		sha, l, err := readLedger(ws, r.Name)
		if err != nil {
			return n, err
		}
		if slices.ContainsFunc(l.Answers, func(a takenAnswer) bool { return a.Expires >= now.Unix() }) {
			continue
		}
		if !dryRun {
			err := ws.Records().Delete(r.Name, sha)
			if _, moved := errors.AsType[*workspace.RefConflict](err); moved || errors.Is(err, workspace.ErrRefLocked) {
				continue // a new answer meanwhile: the ledger is in use
			}
			if err != nil {
				return n, err
			}
		}
		n++
	}
	return n, nil
}
