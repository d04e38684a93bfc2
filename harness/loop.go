package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// Submit starts a run for task and returns its id. The run proceeds in the
// background; Wait, Status and the observer follow it.
func (h *Harness) Submit(ctx context.Context, task string) (string, error) {
	id := newRunID()
	dir := filepath.Join(h.runsDir, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("harness: %w", err)
	}
	log, err := eventlog.Create(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		return "", err
	}
	r := &run{id: id, dir: dir, log: log}
	var table []eventlog.ToolEntry
	for _, e := range h.table.Offered() {
		table = append(table, eventlog.ToolEntry{Alias: e.Alias, Source: e.Source, Tool: e.Tool, Effect: string(e.Effect), Definition: e.Definition, Mismatch: e.Mismatch})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// One fsync for both: nothing is reported or sent between them.
	created := entry{eventlog.RunCreated, "", eventlog.RunData{Task: task, Model: h.model.Name(), Tools: table, Unavailable: h.Unavailable(), Servers: h.origins()}}
	if err := h.recordAll(r, created, entry{eventlog.RunState, "", eventlog.StateData{State: eventlog.Running}}); err != nil {
		log.Close()
		return "", err
	}
	h.mu.Lock()
	h.runs[id] = r
	h.mu.Unlock()
	h.launch(ctx, r)
	return id, nil
}

func newRunID() string {
	var b [4]byte
	rand.Read(b[:])
	return "r" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// launch starts the loop of r, or, when one is running, makes it look
// again before it stops. The caller holds r.mu.
func (h *Harness) launch(ctx context.Context, r *run) {
	if r.active {
		r.kick = true
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.active, r.cancel, r.idle = true, cancel, make(chan struct{})
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		for {
			err := h.loop(ctx, r)
			r.mu.Lock()
			if err != nil {
				h.logger.Error("run stopped", "run", r.id, "err", err)
				if !terminalRun(r.state) {
					h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Failed, Reason: err.Error()})
				}
			}
			if r.kick && err == nil && !terminalRun(r.state) {
				r.kick = false
				r.mu.Unlock()
				continue
			}
			if ferr := h.flush(r); ferr != nil {
				h.logger.Error("run's events not synced", "run", r.id, "err", ferr)
			}
			r.kick, r.active = false, false
			close(r.idle)
			r.mu.Unlock()
			return
		}
	}()
}

func terminalRun(s string) bool {
	return s == eventlog.Completed || s == eventlog.Failed || s == eventlog.Cancelled
}

// errParked stops a loop that must wait for a person.
var errParked = errors.New("parked")

// loop drives r until it completes, fails, or waits for a person.
func (h *Harness) loop(ctx context.Context, r *run) error {
	for {
		r.mu.Lock()
		if terminalRun(r.state) {
			r.mu.Unlock()
			return nil
		}
		if ctx.Err() != nil {
			h.cancelled(r)
			r.mu.Unlock()
			return nil
		}
		if h.stopping.Load() {
			if r.state != eventlog.Interrupted && r.state != eventlog.WaitingForApproval {
				h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Interrupted, Reason: "the harness is stopping"})
			}
			r.mu.Unlock()
			return nil
		}
		if r.state != eventlog.Running {
			if err := h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Running, Reason: "resumed"}); err != nil {
				r.mu.Unlock()
				return err
			}
		}
		reply := r.lastReply()
		r.mu.Unlock()
		var err error
		if reply != nil {
			err = h.answerCalls(ctx, r, reply)
		} else {
			err = h.askModel(ctx, r)
		}
		if errors.Is(err, errParked) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// askModel asks the model for its next reply and records it.
func (h *Harness) askModel(ctx context.Context, r *run) error {
	r.mu.Lock()
	replies := 0
	for _, m := range r.msgs {
		if m.Role == model.Assistant {
			replies++
		}
	}
	req := model.Request{System: h.system, Messages: append([]model.Message(nil), r.msgs...), Tools: h.specs()}
	r.mu.Unlock()
	if replies >= h.cfg.MaxTurns {
		r.mu.Lock()
		defer r.mu.Unlock()
		h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Failed, Reason: fmt.Sprintf("no answer after %d model replies", replies)})
		return errParked
	}
	reply, err := h.model.Next(ctx, req)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Err() != nil {
		return h.cancelled(r)
	}
	if err != nil {
		h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Failed, Reason: "model: " + err.Error()})
		return errParked
	}
	data := eventlog.ReplyData{Text: reply.Text, Renamed: uniqueCallIDs(reply.Calls, replies+1)}
	for _, c := range reply.Calls {
		data.Calls = append(data.Calls, eventlog.ModelCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	if err := h.stage(r, entry{eventlog.ModelReply, "", data}); err != nil {
		return err
	}
	if len(reply.Calls) == 0 {
		if err := h.record(r, eventlog.Answer, "", eventlog.AnswerData{Text: reply.Text}); err != nil {
			return err
		}
		h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Completed})
		return errParked
	}
	return nil
}

// uniqueCallIDs gives each call of the reply-th reply an id no other call
// of it has: a call without an id, or with the id of an earlier call,
// becomes "harness_<reply>_<n>" (n its position from 1, with a further
// "_<k>" if the model used that too). Results are matched to calls by id,
// so two calls sharing one would leave a call without its result and the
// run waiting for ever. The names depend only on the reply, so they are
// the same whenever it is replayed; the event log records each renaming.
func uniqueCallIDs(calls []model.ToolCall, reply int) []eventlog.RenamedCall {
	taken := make(map[string]bool, len(calls))
	for _, c := range calls {
		taken[c.ID] = true
	}
	seen := make(map[string]bool, len(calls))
	var renamed []eventlog.RenamedCall
	for i := range calls {
		id := calls[i].ID
		if id != "" && !seen[id] {
			seen[id] = true
			continue
		}
		to := fmt.Sprintf("harness_%d_%d", reply, i+1)
		for k := 2; taken[to]; k++ {
			to = fmt.Sprintf("harness_%d_%d_%d", reply, i+1, k)
		}
		taken[to], seen[to] = true, true
		calls[i].ID = to
		renamed = append(renamed, eventlog.RenamedCall{Index: i, From: id, To: to})
	}
	return renamed
}

// specs is the tool table as the model sees it.
func (h *Harness) specs() []model.ToolSpec {
	var out []model.ToolSpec
	for _, e := range h.table.Offered() {
		out = append(out, model.ToolSpec{Name: e.Alias, Description: e.Description, InputSchema: e.Schema})
	}
	return out
}

// answerCalls proposes every call of the reply that has no ToolCall yet,
// then takes the calls in order until each has its result, or one needs a
// person.
func (h *Harness) answerCalls(ctx context.Context, r *run, reply *model.Message) error {
	// Previews that need a call of their own are fetched before the run is
	// locked.
	shown := make(map[string]fetched)
	for _, mc := range reply.Calls {
		r.mu.Lock()
		_, proposed := r.byMsg[mc.ID]
		r.mu.Unlock()
		if !proposed {
			shown[mc.ID] = h.fetchPreview(ctx, r.id, mc)
		}
	}
	r.mu.Lock()
	for _, mc := range reply.Calls {
		if _, ok := r.byMsg[mc.ID]; !ok {
			if err := h.propose(r, mc, shown[mc.ID]); err != nil {
				r.mu.Unlock()
				return err
			}
		}
	}
	ids := make([]string, 0, len(reply.Calls))
	for _, mc := range reply.Calls {
		ids = append(ids, r.byMsg[mc.ID])
	}
	r.mu.Unlock()
	for _, id := range ids {
		if err := h.advance(ctx, r, id); err != nil {
			return err
		}
	}
	return nil
}

// advance moves one call on until it has its result or waits for a person.
func (h *Harness) advance(ctx context.Context, r *run, id string) error {
	for {
		r.mu.Lock()
		c := r.calls[id]
		if c.answered {
			r.mu.Unlock()
			return nil
		}
		switch c.State {
		case eventlog.Ready:
			err := h.execute(ctx, r, c) // unlocks r.mu
			if err != nil {
				return err
			}
			continue
		case eventlog.WaitingForApproval:
			if r.state != eventlog.WaitingForApproval {
				h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.WaitingForApproval, Reason: "call " + id + " needs approval"})
			}
			r.mu.Unlock()
			return errParked
		case eventlog.Unknown:
			err := h.interrupt(r, c)
			r.mu.Unlock()
			if err != nil {
				return err
			}
			continue
		case eventlog.Cancelled:
			err := h.cancelled(r)
			r.mu.Unlock()
			return err
		default: // terminal: give the model its result
			err := h.answer(r, c)
			r.mu.Unlock()
			return err
		}
	}
}

// interrupt retries an unknown read-only call automatically when allowed,
// and otherwise interrupts the run. The caller holds r.mu.
func (h *Harness) interrupt(r *run, c *call) error {
	if c.Effect == string(config.ReadOnly) && c.attempts <= *h.cfg.RetryReadOnly && !h.stopping.Load() {
		note := fmt.Sprintf("read_only: retried automatically (attempt %d of %d)", c.attempts+1, *h.cfg.RetryReadOnly+1)
		if err := h.record(r, eventlog.Reconcile, c.id, eventlog.ReconcileData{Decision: eventlog.Retry, By: "harness", Note: note, Automatic: true}); err != nil {
			return err
		}
		if err := h.record(r, eventlog.CallState, c.id, eventlog.CallData{State: eventlog.Ready, Reason: note}); err != nil {
			return err
		}
		return nil // advance goes on with the ready call
	}
	if r.state != eventlog.Interrupted {
		h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Interrupted, Reason: "call " + c.id + " ended unknown: " + c.Reason})
	}
	return errParked
}

// cancelled records that r was cancelled. The caller holds r.mu.
func (h *Harness) cancelled(r *run) error {
	for _, id := range r.order {
		c := r.calls[id]
		if !eventlog.Terminal(c.State) && c.State != eventlog.Unknown {
			h.record(r, eventlog.CallState, id, eventlog.CallData{State: eventlog.Cancelled, Reason: "run cancelled"})
		}
	}
	if !terminalRun(r.state) {
		h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Cancelled})
	}
	return errParked
}

// answer gives the model the result of a call in a terminal state. The
// caller holds r.mu.
func (h *Harness) answer(r *run, c *call) error {
	res, err := h.resultFor(r, c, c.State, c.Reason)
	if err != nil {
		return err
	}
	return h.record(r, eventlog.ToolResult, c.id, res)
}

// resultFor is what the model receives for a call that ends in state:
// control, escape and bidirectional characters of a server's answer (or of
// the reasons that quote one) made visible, so that no tool result can
// hide text from a person reading the log or steer how it is shown.
func (h *Harness) resultFor(r *run, c *call, state, reason string) (eventlog.ResultData, error) {
	res, err := h.rawResultFor(r, c, state, reason)
	res.Content = visible.Text(res.Content)
	return res, err
}

func (h *Harness) rawResultFor(r *run, c *call, state, reason string) (eventlog.ResultData, error) {
	res := eventlog.ResultData{ModelCall: c.ModelCall, IsError: true}
	switch state {
	case eventlog.Succeeded:
		res.Content, res.IsError = h.resultText(r, c), false
		if res.Content == "" {
			res.Content = reason
		}
	case eventlog.PermissionDenied:
		res.Content = "permission_denied: " + reason
	case eventlog.Denied:
		res.Content = "permission_denied: a person denied this call: " + reason
	case eventlog.Failed:
		res.Content = h.resultText(r, c)
		if res.Content == "" {
			res.Content = reason
		}
	default:
		return res, fmt.Errorf("call %s: no result in state %s", c.id, state)
	}
	return res, nil
}
