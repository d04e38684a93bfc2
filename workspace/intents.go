package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// A branch move and the record that says who made it are two ref writes,
// and a process can die between them. So a writer first leaves an intent,
//
//	refs/repo-mcp/intents/branch-<hash of the branch's name>
//
// a blob naming the branch, the commit it goes to, and the record (its
// name and its blob, written already) to point once the branch is there.
// Whoever next meets the intent settles it: a branch at the intent's
// commit gets the record, and the intent goes; a branch that can no
// longer get there (it is neither at the commit nor where the writer saw
// it) loses the intent. An intent whose branch has not moved is the
// writer's, still at work, until it is older than [IntentStale]: only
// then may another process drop it. One intent per branch at a time makes
// it the branch's lock across processes too.
//
// An intent's age is measured on the clock of the process judging it, from
// when that process first saw it, because the stamp in the intent comes
// from its writer's clock, and replicas sharing a repository may disagree
// on the time. The stamp alone decides only when it is older than
// [IntentStale] by more than [intentClockSkew]: that is how a process
// started after a crash drops the dead writer's intent at once.
const intentPrefix = "intents/" // under RecordPrefix

// IntentStale is the age after which an intent whose branch has not moved
// is taken for its writer's death. A writer gives up its move when its
// intent is older than [intentMoveWindow] on its own clock, well before,
// so a live writer never moves a branch after its intent was dropped.
const IntentStale = time.Minute

// intentClockSkew bounds how far the clocks of processes sharing a
// repository may disagree, for intents judged by their stamp alone.
const intentClockSkew = 10 * time.Minute

// intentMoveWindow bounds the time between writing an intent and moving
// the branch.
const intentMoveWindow = 10 * time.Second

// Intent is a branch move about to be made, and its record.
type Intent struct {
	Branch     string `json:"branch"`      // full name under refs/heads/
	From       string `json:"from"`        // the branch's head the writer saw ("" when it did not exist)
	Commit     string `json:"commit"`      // where the branch goes
	Record     string `json:"record"`      // the record's name, relative to RecordPrefix
	RecordBlob string `json:"record_blob"` // the record's content, written already
	Time       string `json:"time"`        // when the intent was written (RFC 3339, nanoseconds)
}

// ErrIntentPending says another writer is moving the branch now.
var ErrIntentPending = errors.New("another writer is moving the branch")

// Settled is what settling an intent did.
type Settled struct {
	Intent
	Recorded bool // the branch was at the commit: the record now names RecordBlob
}

func intentName(branch string) string {
	sum := sha256.Sum256([]byte(branch))
	return intentPrefix + "branch-" + hex.EncodeToString(sum[:8])
}

// Intend settles any intent left on in.Branch, then writes in as the
// branch's intent, stamped now, and returns the intent's blob for
// [Records.ClearIntent]. It fails as [ErrIntentPending] while another
// writer's intent on the branch is live. The writer then checks
// [CheckIntentYoung], moves the branch, points the record, and clears the
// intent.
func (r Records) Intend(in Intent, now time.Time) (sha string, err error) {
	if _, err := r.SettleIntent(in.Branch, now); err != nil {
		return "", err
	}
	in.Time = now.UTC().Format(time.RFC3339Nano)
	data, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	if sha, err = r.w.WriteBlob(data); err != nil {
		return "", err
	}
	r.w.intents.firstSeen(sha, now)
	err = r.Update(intentName(in.Branch), sha, "")
	var conflict *RefConflict
	if errors.As(err, &conflict) || errors.Is(err, ErrRefLocked) {
		return "", fmt.Errorf("%w: %s", ErrIntentPending, in.Branch)
	}
	return sha, err
}

// CheckIntentYoung fails when the intent written at written is too old to
// move its branch: another process may take it for dead from
// [IntentStale] on.
func CheckIntentYoung(written, now time.Time) error {
	if now.Sub(written) > intentMoveWindow {
		return errclass.Errorf(errclass.Transient, "the branch move waited %s after its intent; nothing was moved", now.Sub(written).Round(time.Millisecond))
	}
	return nil
}

// ClearIntent removes the intent sha on branch once its record is
// written. Someone who settled it has removed it already, or is removing
// it now (the ref's lock is held).
func (r Records) ClearIntent(branch, sha string) error {
	err := r.Delete(intentName(branch), sha)
	r.w.intents.forget(sha)
	if _, ok := errors.AsType[*RefConflict](err); ok || errors.Is(err, ErrRefLocked) {
		return nil
	}
	return err
}

// SettleIntent settles the intent left on branch, if any, as the comment
// on intentPrefix says, and returns what it did (nil when there was no
// intent, or it is still its writer's). It is idempotent, and safe against
// other processes settling or writing the same intent.
func (r Records) SettleIntent(branch string, now time.Time) (*Settled, error) {
	name := intentName(branch)
	sha, err := r.Read(name)
	if err != nil || sha == "" {
		return nil, err
	}
	data, err := r.w.ReadBlob(sha, 1<<16)
	if err != nil {
		return nil, err
	}
	var in Intent
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, r.w.internalError("decoding intent "+name, err)
	}
	head, err := r.w.readRef(in.Branch)
	if err != nil {
		return nil, err
	}
	s := &Settled{Intent: in, Recorded: head == in.Commit}
	if head == in.From && !r.w.intents.stale(sha, in, now) {
		return nil, nil // its writer may still move it
	}
	if s.Recorded {
		err := r.Update(in.Record, in.RecordBlob, "")
		if errors.Is(err, ErrRefLocked) {
			return nil, nil // the writer, or another settler, is recording it now
		}
		if _, ok := errors.AsType[*RefConflict](err); !ok && err != nil {
			return nil, err
		}
	}
	if err := r.ClearIntent(branch, sha); err != nil {
		return nil, err
	}
	return s, nil
}

// intentWatch remembers when this process first saw each intent, so that
// an intent ages on this process's clock (see intentPrefix).
type intentWatch struct {
	mu   sync.Mutex
	seen map[string]time.Time // intent blob SHA → first seen
}

// intentWatchSweep is the size from which firstSeen drops intents seen
// long ago: ones cleared by other processes are never forgotten otherwise.
const intentWatchSweep = 256

// firstSeen returns when this process first saw the intent sha, now if
// never before.
func (iw *intentWatch) firstSeen(sha string, now time.Time) time.Time {
	iw.mu.Lock()
	defer iw.mu.Unlock()
	if t, ok := iw.seen[sha]; ok {
		return t
	}
	if iw.seen == nil {
		iw.seen = make(map[string]time.Time)
	}
	if len(iw.seen) >= intentWatchSweep {
		for s, t := range iw.seen {
			if now.Sub(t) > 2*IntentStale {
				delete(iw.seen, s)
			}
		}
	}
	iw.seen[sha] = now
	return now
}

func (iw *intentWatch) forget(sha string) {
	iw.mu.Lock()
	delete(iw.seen, sha)
	iw.mu.Unlock()
}

// stale reports whether the intent in, stored as blob sha, may be taken
// for its writer's death at now.
func (iw *intentWatch) stale(sha string, in Intent, now time.Time) bool {
	if now.Sub(iw.firstSeen(sha, now)) > IntentStale {
		return true
	}
	written, err := time.Parse(time.RFC3339Nano, in.Time)
	return err != nil || now.Sub(written) > IntentStale+intentClockSkew
}

// SettleIntents settles every intent of the workspace; see SettleIntent.
func (r Records) SettleIntents(now time.Time) ([]Settled, error) {
	refs, err := r.List(intentPrefix)
	if err != nil {
		return nil, err
	}
	var out []Settled
	var errs []error
	for _, ref := range refs {
		data, err := r.w.ReadBlob(ref.SHA, 1<<16)
		var in Intent
		if err == nil {
			err = json.Unmarshal(data, &in)
		}
		if err == nil && intentName(in.Branch) != ref.Name {
			err = fmt.Errorf("intent %s names branch %s", ref.Name, in.Branch)
		}
		if err == nil {
			var s *Settled
			if s, err = r.SettleIntent(in.Branch, now); s != nil {
				out = append(out, *s)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// SettleIntents settles the intents of every workspace; call it at start.
func (r *Registry) SettleIntents(now time.Time) ([]Settled, error) {
	var out []Settled
	var errs []error
	for _, ws := range r.workspaces {
		s, err := ws.Records().SettleIntents(now)
		out = append(out, s...)
		if err != nil {
			errs = append(errs, fmt.Errorf("workspace %q: %w", ws.id, err))
		}
	}
	return out, errors.Join(errs...)
}
