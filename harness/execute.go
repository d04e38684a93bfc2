package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/harness/artifact"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/source"
	"github.com/repo-mcp/repo-mcp/harness/tools"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// execute sends a ready call. The caller holds r.mu; execute releases it
// while the call is in flight and returns with it released.
func (h *Harness) execute(ctx context.Context, r *run, c *call) error {
	e, ok := h.table.Lookup(c.Alias)
	src := h.sources[c.Source]
	if !ok || src == nil || e.Definition != c.Definition || e.Disabled != "" {
		err := h.record(r, eventlog.CallState, c.id, eventlog.CallData{State: eventlog.Failed, Reason: "not sent: the tool's definition changed or it was disabled after the call was approved"})
		r.mu.Unlock()
		return err
	}
	if ctx.Err() != nil {
		err := h.cancelled(r)
		r.mu.Unlock()
		if errors.Is(err, errParked) {
			return errParked
		}
		return err
	}
	// The intent: on disk before anything is sent, with the request_id
	// that joins this record to the server's.
	reqID := fmt.Sprintf("%s.%s.%d", r.id, c.id, c.attempts+1)
	if err := h.record(r, eventlog.CallState, c.id, eventlog.CallData{State: eventlog.Executing, Attempt: c.attempts + 1, RequestID: reqID}); err != nil {
		r.mu.Unlock()
		return err
	}
	args := withRequestID(e, c.Arguments, reqID)
	r.mu.Unlock()

	start := time.Now()
	res, err := src.Call(source.WithRequestID(ctx, reqID), c.Tool, args)
	dur := time.Since(start)

	r.mu.Lock()
	defer r.mu.Unlock()
	d := h.settle(r, c, res, err, ctx.Err() != nil)
	d.DurationMS = float64(dur.Microseconds()) / 1000
	if d.State != eventlog.Succeeded && d.State != eventlog.Failed {
		return h.record(r, eventlog.CallState, c.id, d)
	}
	// The end of the call and what the model receives, durable with the
	// run's next record (the next intent, or the run's end), whose sync
	// covers the artifact written before them in the same file.
	result, err := h.resultFor(r, c, d.State, d.Reason)
	if err != nil {
		return err
	}
	return h.stage(r, entry{eventlog.CallState, c.id, d}, entry{eventlog.ToolResult, c.id, result})
}

// withRequestID returns a call's arguments with request_id set to id when
// the tool's schema has a request_id argument and the model gave none
// (the model's own is kept: it was part of what was approved). Every
// call also carries id in _meta (source.WithRequestID).
func withRequestID(e *tools.Entry, args json.RawMessage, id string) json.RawMessage {
	if !e.TakesRequestID() {
		return args
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil || obj["request_id"] != nil {
		return args
	}
	obj["request_id"], _ = json.Marshal(id)
	out, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return out
}

// settle turns a call's answer (or its absence) into its next state, and
// writes the artifact that state names to the run's log, before it.
func (h *Harness) settle(r *run, c *call, res *source.Result, err error, cancelled bool) eventlog.CallData {
	if err == nil {
		ref, perr := keep(r, res.Raw)
		if perr != nil {
			return eventlog.CallData{State: eventlog.Unknown, Outcome: client.Answered.String(), Reason: "the answer could not be stored: " + perr.Error()}
		}
		c.result = h.summarize(res, ref)
		state := eventlog.Succeeded
		if res.IsError {
			state = eventlog.Failed
		}
		return eventlog.CallData{State: state, Outcome: client.Answered.String(), ResultBytes: ref.Size, Artifact: ref.Digest, ServerRequestID: source.ServerRequestID(res.Raw)}
	}
	var ce *source.CallError
	if !errors.As(err, &ce) {
		ce = &source.CallError{Outcome: client.NotSent, Message: err.Error()}
	}
	d := eventlog.CallData{Outcome: ce.Outcome.String(), Reason: ce.Message}
	if len(ce.Head) > 0 {
		if ref, perr := keep(r, ce.Head); perr == nil {
			d.Artifact, d.ResultBytes = ref.Digest, ce.Size
			d.Reason += fmt.Sprintf(" (answer of %d bytes; its first %d bytes are artifact %s)", ce.Size, len(ce.Head), ref.Digest)
		}
	}
	switch {
	case cancelled:
		d.State = eventlog.Cancelled
		d.Reason = "cancelled; notifications/cancelled was sent, and the server may still act on the call"
	case ce.Outcome.Unknown():
		d.State = eventlog.Unknown
	case ce.Outcome == client.NotSent:
		d.State = eventlog.Failed
		d.Reason = "transient: not sent: " + ce.Message
	default:
		d.State = eventlog.Failed
	}
	if d.State == eventlog.Failed {
		c.result = d.Reason
	}
	return d
}

// keep writes data to the run's log as an artifact, durable with the
// log's next sync, and returns its reference.
func keep(r *run, data []byte) (artifact.Ref, error) {
	ref := artifact.Of(data)
	if err := r.log.StageArtifact(ref.Digest, data); err != nil {
		return artifact.Ref{}, err
	}
	return ref, nil
}

// artifact returns the bytes of an artifact of the run: from its log, or
// from the store of a run recorded before logs held them.
func (r *run) artifact(digest string) ([]byte, error) {
	data, held, err := r.log.Artifact(digest)
	if err != nil {
		return nil, err
	}
	if !held {
		store, err := artifact.OpenStore(filepath.Join(r.dir, "artifacts"))
		if err != nil {
			return nil, err
		}
		return store.Get(digest)
	}
	if err := artifact.Check(digest, data); err != nil {
		return nil, err
	}
	return data, nil
}

// summarize renders a result for the model: bounded text, and a note for
// every content block it cannot be given yet.
func (h *Harness) summarize(res *source.Result, ref artifact.Ref) string {
	// Made visible before it is cut, so the bound holds for what the model
	// reads.
	text := artifact.Summarize(visible.Text(res.Text()), ref, h.cfg.SummaryBytes)
	if kinds := res.Unsupported(); len(kinds) > 0 {
		note := artifact.Unsupported(kinds, ref)
		if text == "" {
			return note
		}
		text += "\n" + note
	}
	return text
}

// resultText is what the model receives of a call's answer: kept from
// settle, or rebuilt from the artifact after a restart.
func (h *Harness) resultText(r *run, c *call) string {
	if c.result != "" || c.Outcome != client.Answered.String() || c.Artifact == "" {
		return c.result
	}
	raw, err := r.artifact(c.Artifact)
	if err != nil {
		return "internal: the stored result is unreadable: " + err.Error()
	}
	res, err := source.ParseResult(raw)
	if err != nil {
		return "internal: the stored result is unreadable: " + err.Error()
	}
	return h.summarize(res, artifact.Ref{Digest: c.Artifact, Size: int64(len(raw))})
}
