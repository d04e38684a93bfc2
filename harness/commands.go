package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
)

// Status is a run as its events leave it.
type Status struct {
	Run    string       `json:"run"`
	State  string       `json:"state"`
	Reason string       `json:"reason,omitempty"`
	Task   string       `json:"task"`
	Answer string       `json:"answer,omitempty"`
	Log    string       `json:"log"`
	Calls  []CallStatus `json:"calls,omitempty"`
}

// CallStatus is one ToolCall of a Status.
type CallStatus struct {
	ID         string `json:"id"`
	Alias      string `json:"alias"`
	Source     string `json:"source,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Effect     string `json:"effect,omitempty"`
	State      string `json:"state"`
	Reason     string `json:"reason,omitempty"`
	Digest     string `json:"digest"`
	Definition string `json:"definition,omitempty"`
	Arguments  string `json:"arguments"`
	Preview    string `json:"preview,omitempty"`
	Attempts   int    `json:"attempts,omitempty"`
	Artifact   string `json:"artifact,omitempty"`
}

// ErrNoRun means no run has the given id.
var ErrNoRun = errors.New("harness: no such run")

func (h *Harness) get(id string) (*run, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.runs[id]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("%w: %q (or it is finished)", ErrNoRun, id)
}

// Status returns the state of a run, live or from its log on disk.
func (h *Harness) Status(id string) (Status, error) {
	r, err := h.get(id)
	if err != nil {
		if r, err = h.readRun(id); err != nil {
			return Status{}, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status(), nil
}

func (r *run) status() Status {
	st := Status{Run: r.id, State: r.state, Reason: r.reason, Task: r.task, Answer: r.answer, Log: filepath.Join(r.dir, "events.jsonl")}
	for _, id := range r.order {
		c := r.calls[id]
		st.Calls = append(st.Calls, CallStatus{
			ID: id, Alias: c.Alias, Source: c.Source, Tool: c.Tool, Effect: c.Effect, State: c.State, Reason: c.Reason,
			Digest: c.Digest, Definition: c.Definition, Arguments: c.Summary, Preview: c.Preview, Attempts: c.attempts, Artifact: c.Artifact,
		})
	}
	return st
}

// Wait blocks until the run is at rest (completed, failed, cancelled,
// interrupted, or waiting for a person) or ctx ends, and returns its status.
func (h *Harness) Wait(ctx context.Context, id string) (Status, error) {
	r, err := h.get(id)
	if err != nil {
		return h.Status(id)
	}
	for {
		r.mu.Lock()
		active, idle := r.active, r.idle
		r.mu.Unlock()
		if !active {
			return h.Status(id)
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return Status{}, ctx.Err()
		}
	}
}

// Approve lets a waiting call proceed. digest and definition must be the
// call's argument digest and tool-definition hash: an approval is for
// exactly those arguments of exactly that tool.
func (h *Harness) Approve(id, callID, digest, definition, by string) error {
	return h.decideCall(id, callID, by, func(r *run, c *call) error {
		if digest != c.Digest || definition != c.Definition {
			return fmt.Errorf("harness: the approval names digest %s and definition %s; call %s has %s and %s", digest, definition, c.id, c.Digest, c.Definition)
		}
		if err := h.record(r, eventlog.Approval, c.id, eventlog.ApprovalData{Decision: "approve", By: by, Digest: digest, Definition: definition}); err != nil {
			return err
		}
		return h.record(r, eventlog.CallState, c.id, eventlog.CallData{State: eventlog.Ready, Reason: "approved by " + by})
	})
}

// Deny refuses a waiting call; the model is told, and the run goes on.
func (h *Harness) Deny(id, callID, by, reason string) error {
	return h.decideCall(id, callID, by, func(r *run, c *call) error {
		if err := h.record(r, eventlog.Approval, c.id, eventlog.ApprovalData{Decision: "deny", By: by, Digest: c.Digest, Definition: c.Definition, Reason: reason}); err != nil {
			return err
		}
		return h.record(r, eventlog.CallState, c.id, eventlog.CallData{State: eventlog.Denied, Reason: strings.TrimSpace("denied by " + by + ": " + reason)})
	})
}

func (h *Harness) decideCall(id, callID, by string, decide func(*run, *call) error) error {
	if by == "" {
		return errors.New("harness: a decision needs the name of who takes it")
	}
	r, err := h.get(id)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls[callID]
	if c == nil || c.State != eventlog.WaitingForApproval {
		return fmt.Errorf("harness: run %s has no call %s waiting for approval", id, callID)
	}
	if err := decide(r, c); err != nil {
		return err
	}
	h.launch(context.Background(), r)
	return nil
}

// Cancel stops a run: a call in flight stops being waited for at once and
// ends cancelled (notifications/cancelled is sent as best effort), and the
// run ends cancelled.
func (h *Harness) Cancel(id string) error {
	r, err := h.get(id)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if terminalRun(r.state) {
		return fmt.Errorf("harness: run %s is already %s", id, r.state)
	}
	if r.active {
		r.cancel()
		return nil
	}
	if err := h.cancelled(r); !errors.Is(err, errParked) {
		return err
	}
	return nil
}

// Reconcile settles a call whose effect was unknown, as a person found it:
// eventlog.Happened, eventlog.NotHappened, or eventlog.Retry (send it
// again). When no unknown call is left, the run resumes.
func (h *Harness) Reconcile(id, callID, decision, by, note string) error {
	if by == "" {
		return errors.New("harness: a decision needs the name of who takes it")
	}
	var next, reason string
	switch decision {
	case eventlog.Happened:
		next, reason = eventlog.Succeeded, "reconciled by "+by+": the call happened, but its result was lost"
	case eventlog.NotHappened:
		next, reason = eventlog.Failed, "reconciled by "+by+": the call did not happen"
	case eventlog.Retry:
		next, reason = eventlog.Ready, "reconciled by "+by+": send it again"
	default:
		return fmt.Errorf("harness: reconcile decision %q: want happened, not_happened or retry", decision)
	}
	r, err := h.get(id)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls[callID]
	if c == nil || c.State != eventlog.Unknown {
		return fmt.Errorf("harness: run %s has no unknown call %s", id, callID)
	}
	if err := h.record(r, eventlog.Reconcile, callID, eventlog.ReconcileData{Decision: decision, By: by, Note: note}); err != nil {
		return err
	}
	if err := h.record(r, eventlog.CallState, callID, eventlog.CallData{State: next, Reason: reason}); err != nil {
		return err
	}
	if len(r.unknownCalls()) == 0 && !terminalRun(r.state) {
		h.launch(context.Background(), r)
	}
	return nil
}

// Resume continues an interrupted run that has no unknown call left.
func (h *Harness) Resume(id string) error {
	r, err := h.get(id)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if terminalRun(r.state) {
		return fmt.Errorf("harness: run %s is %s", id, r.state)
	}
	if u := r.unknownCalls(); len(u) > 0 {
		return fmt.Errorf("harness: run %s has unknown calls %v: reconcile them first", id, u)
	}
	h.launch(context.Background(), r)
	return nil
}
