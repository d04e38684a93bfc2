package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// run is the state of one run, derived from its events by apply.
type run struct {
	id  string
	dir string
	log *eventlog.Log

	mu     sync.Mutex
	state  string
	reason string
	task   string
	answer string
	msgs   []model.Message
	calls  map[string]*call // by call id
	order  []string
	byMsg  map[string]string // model call id -> call id, for the reply being answered
	// results gathered for the last assistant message
	pending []model.ToolResult
	// unobserved are staged events: applied, not yet durable, so not yet
	// reported; the next record's fsync covers them and reports them first.
	unobserved []eventlog.Event

	active bool               // a loop goroutine is driving the run
	kick   bool               // a decision arrived while it was: look again before stopping
	cancel context.CancelFunc // cancels the active loop
	idle   chan struct{}      // closed when the active loop stops
}

// call is the state of one ToolCall.
type call struct {
	eventlog.CallData
	id        string
	approval  *eventlog.ApprovalData
	reconcile *eventlog.ReconcileData
	attempts  int
	answered  bool   // its tool result was given to the model
	result    string // what the model receives, once settled (not logged: rebuilt from the artifact)
}

// record appends an event to the run's log, applies it, and tells the
// observer. The caller holds r.mu.
func (h *Harness) record(r *run, typ eventlog.Type, callID string, data any) error {
	return h.recordAll(r, entry{typ, callID, data})
}

// entry is an event to record.
type entry struct {
	typ  eventlog.Type
	call string
	data any
}

// recordAll records several events with one fsync, which also makes the
// staged events before them durable: those are reported first. The caller
// holds r.mu.
func (h *Harness) recordAll(r *run, entries ...entry) error {
	evs, err := r.log.AppendAll(r.events(entries)...)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	h.observeStaged(r)
	for _, ev := range evs {
		if err := r.apply(ev); err != nil {
			return err
		}
		h.observe(ev)
	}
	return nil
}

// stage records events that nothing is sent or reported on before the
// run's next record: a model's reply, the policy's decision on its calls,
// a call's result. They are written and applied at once, and become
// durable with the next record's fsync (the intent of the next call, or
// the run's next state), which reports them: one fsync per call rather
// than one per event. The caller holds r.mu.
func (h *Harness) stage(r *run, entries ...entry) error {
	evs, err := r.log.Stage(r.events(entries)...)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	return h.applyStaged(r, evs)
}

// applyStaged applies staged events to the run, to be reported once they
// are durable.
func (h *Harness) applyStaged(r *run, evs []eventlog.Event) error {
	for _, ev := range evs {
		if err := r.apply(ev); err != nil {
			return err
		}
		r.unobserved = append(r.unobserved, ev)
	}
	return nil
}

// flush makes the run's staged events durable and reports them, for a
// loop that stops without a record of its own. The caller holds r.mu.
func (h *Harness) flush(r *run) error {
	if len(r.unobserved) == 0 {
		return nil
	}
	if err := r.log.Sync(); err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	h.observeStaged(r)
	return nil
}

func (h *Harness) observeStaged(r *run) {
	for _, ev := range r.unobserved {
		h.observe(ev)
	}
	r.unobserved = r.unobserved[:0]
}

func (r *run) events(entries []entry) []eventlog.Event {
	evs := make([]eventlog.Event, len(entries))
	for i, e := range entries {
		evs[i] = eventlog.Event{Run: r.id, Type: e.typ, Call: e.call, Data: eventlog.Marshal(e.data)}
	}
	return evs
}

// apply changes the run's state as ev says. It is the only place that does.
func (r *run) apply(ev eventlog.Event) error {
	switch ev.Type {
	case eventlog.RunCreated:
		var d eventlog.RunData
		if err := ev.Decode(&d); err != nil {
			return err
		}
		r.task = d.Task
		r.msgs = []model.Message{{Role: model.User, Text: d.Task}}
	case eventlog.RunState:
		var d eventlog.StateData
		if err := ev.Decode(&d); err != nil {
			return err
		}
		r.state, r.reason = d.State, d.Reason
	case eventlog.ModelReply:
		var d eventlog.ReplyData
		if err := ev.Decode(&d); err != nil {
			return err
		}
		msg := model.Message{Role: model.Assistant, Text: d.Text}
		for _, c := range d.Calls {
			msg.Calls = append(msg.Calls, model.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		r.msgs = append(r.msgs, msg)
		r.byMsg = map[string]string{}
		r.pending = nil
	case eventlog.CallState:
		return r.applyCall(ev)
	case eventlog.Approval:
		var d eventlog.ApprovalData
		if err := ev.Decode(&d); err != nil {
			return err
		}
		if c := r.calls[ev.Call]; c != nil {
			c.approval = &d
		}
	case eventlog.Reconcile:
		var d eventlog.ReconcileData
		if err := ev.Decode(&d); err != nil {
			return err
		}
		if c := r.calls[ev.Call]; c != nil {
			c.reconcile = &d
		}
	case eventlog.ToolResult:
		var d eventlog.ResultData
		if err := ev.Decode(&d); err != nil {
			return err
		}
		if c := r.calls[ev.Call]; c != nil {
			c.answered = true
		}
		r.pending = append(r.pending, model.ToolResult{CallID: d.ModelCall, Content: d.Content, IsError: d.IsError})
		if last := r.lastReply(); last != nil && len(r.pending) == len(last.Calls) {
			r.msgs = append(r.msgs, model.Message{Role: model.Tool, Results: r.pending})
			r.pending = nil
		}
	case eventlog.Answer:
		var d eventlog.AnswerData
		if err := ev.Decode(&d); err != nil {
			return err
		}
		r.answer = d.Text
		r.msgs = append(r.msgs, model.Message{Role: model.Assistant, Text: d.Text})
	}
	return nil
}

func (r *run) applyCall(ev eventlog.Event) error {
	var d eventlog.CallData
	if err := ev.Decode(&d); err != nil {
		return err
	}
	if d.State == eventlog.Proposed {
		if r.calls == nil {
			r.calls = map[string]*call{}
		}
		r.calls[ev.Call] = &call{CallData: d, id: ev.Call}
		r.order = append(r.order, ev.Call)
		if r.byMsg == nil {
			r.byMsg = map[string]string{}
		}
		r.byMsg[d.ModelCall] = ev.Call
		return nil
	}
	c := r.calls[ev.Call]
	if c == nil {
		return fmt.Errorf("run %s: event %d: unknown call %s", r.id, ev.Seq, ev.Call)
	}
	c.State, c.Reason = d.State, d.Reason
	if d.State == eventlog.Executing {
		c.attempts = d.Attempt
	}
	if d.Outcome != "" {
		c.Outcome = d.Outcome
	}
	if d.Artifact != "" {
		c.Artifact, c.ResultBytes = d.Artifact, d.ResultBytes
	}
	return nil
}

// lastReply is the newest assistant message with tool calls that still
// waits for their results, or nil.
func (r *run) lastReply() *model.Message {
	if n := len(r.msgs); n > 0 && r.msgs[n-1].Role == model.Assistant && len(r.msgs[n-1].Calls) > 0 {
		return &r.msgs[n-1]
	}
	return nil
}

// unknownCalls lists the calls whose effect is unknown.
func (r *run) unknownCalls() []string {
	var out []string
	for _, id := range r.order {
		if r.calls[id].State == eventlog.Unknown {
			out = append(out, id)
		}
	}
	return out
}

// argsSummary renders arguments briefly, on one line, for the audit.
func argsSummary(args json.RawMessage) string {
	s := visible.Line(string(args))
	if len(s) > 120 {
		cut := 117
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
