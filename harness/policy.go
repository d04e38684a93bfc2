package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
	"github.com/repo-mcp/repo-mcp/harness/source"
	"github.com/repo-mcp/repo-mcp/harness/tools"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// propose records a new ToolCall and decides where it goes; fetched is
// what fetchPreview found for it. The caller holds r.mu.
func (h *Harness) propose(r *run, mc model.ToolCall, shown fetched) error {
	id := fmt.Sprintf("c%d", len(r.order)+1)
	args := mc.Arguments
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	d := eventlog.CallData{State: eventlog.Proposed, ModelCall: mc.ID, Alias: mc.Name, Arguments: args, Digest: Digest(args), Summary: argsSummary(args)}
	e, ok := h.table.Lookup(mc.Name)
	if ok {
		d.Source, d.Tool, d.Effect, d.Definition = e.Source, e.Tool, string(e.Effect), e.Definition
		d.Preview = preview(e, args)
		if shown.text != "" {
			d.Preview += "\n--- " + e.Policy.PreviewWith.Tool + " (called by the harness to show what this call will do) ---\n" + shown.text
		}
		// What a person reads to decide shows every character as it is:
		// a note or a diff cannot conceal a line or rewrite the prompt.
		d.Preview = visible.Text(d.Preview)
	}
	if !ok {
		// Audited as asked: the name the model used, and the source that
		// offers a tool of that name, if one does.
		d.Source, d.Tool = h.table.Unlisted(mc.Name)
	}
	next, reason := h.decide(e, ok, args)
	entries := []entry{{eventlog.CallState, id, d}}
	if shown.call != nil {
		entries = append(entries, entry{eventlog.HarnessCall, id, *shown.call})
	}
	entries = append(entries, entry{eventlog.CallState, id, eventlog.CallData{State: next, Reason: reason}})
	return h.stage(r, entries...)
}

// decide is the policy: which state a proposed call moves to, and why.
func (h *Harness) decide(e *tools.Entry, ok bool, args json.RawMessage) (string, string) {
	switch {
	case !ok:
		return eventlog.PermissionDenied, "not an allowlisted tool"
	case e.Disabled != "":
		return eventlog.PermissionDenied, "tool disabled: " + e.Disabled
	}
	if v := e.Validate(args); len(v) > 0 {
		msgs := make([]string, len(v))
		for i := range v {
			msgs[i] = v[i].String()
		}
		return eventlog.Failed, "invalid_input: " + strings.Join(msgs, "; ")
	}
	if err := h.checkPaths(e, args); err != nil {
		return eventlog.PermissionDenied, err.Error()
	}
	if e.Effect == config.ReadOnly {
		return eventlog.Ready, "read_only"
	}
	return eventlog.WaitingForApproval, string(e.Effect) + " needs a person's approval"
}

// checkPaths applies pathcheck to every configured path argument.
func (h *Harness) checkPaths(e *tools.Entry, args json.RawMessage) error {
	if e.Policy == nil || len(e.Policy.Paths) == 0 {
		return nil
	}
	root := h.roots[e.Source]
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return err
	}
	for _, name := range e.Policy.Paths {
		var values []string
		switch v := m[name].(type) {
		case nil:
		case string:
			values = []string{v}
		case []any:
			for _, x := range v {
				s, _ := x.(string)
				values = append(values, s)
			}
		default:
			return fmt.Errorf("argument %s: not a path", name)
		}
		for _, p := range values {
			if root == nil {
				return fmt.Errorf("argument %s: no workspace is configured for %s, so no path can be checked", name, e.Source)
			}
			if _, err := root.Check(p); err != nil {
				return fmt.Errorf("argument %s: %w", name, err)
			}
		}
	}
	return nil
}

// preview is what a person is shown before approving: every argument,
// indented, and the configured preview argument (a note's text, a diff)
// set apart, as written.
func preview(e *tools.Entry, args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return string(args)
	}
	var shown string
	if e.Policy != nil && e.Policy.Preview != "" {
		if s, ok := m[e.Policy.Preview].(string); ok {
			shown = s
			m[e.Policy.Preview] = fmt.Sprintf("(%d bytes, shown below)", len(s))
		}
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if shown == "" {
		return string(b)
	}
	return string(b) + "\n--- " + e.Policy.Preview + " ---\n" + shown
}

// maxFetchedPreview bounds the text a preview tool contributes.
const maxFetchedPreview = 64 << 10

// fetched is what fetchPreview found for a call: the preview's text, and
// the record of the call that fetched it (nil when none was made).
type fetched struct {
	text string
	call *eventlog.HarnessCallData
}

// fetchPreview runs the read-only tool that a call's policy names to show a
// person what the call will do (preview_diff for apply_patch), with the
// listed arguments of the call, and returns its text; "" when the policy
// names none or the call is read-only. It never fails the call: a preview
// that cannot be had says so, and the person decides. The preview call
// reaches a server like any other, so it has a request_id of its own
// (runID ".preview." and a hash of the model's call id) and is audited.
func (h *Harness) fetchPreview(ctx context.Context, runID string, mc model.ToolCall) fetched {
	e, ok := h.table.Lookup(mc.Name)
	if !ok || e.Policy == nil || e.Policy.PreviewWith == nil || e.Effect == config.ReadOnly {
		return fetched{}
	}
	pw := e.Policy.PreviewWith
	var pe *tools.Entry
	for _, x := range h.table.Entries() {
		if x.Source == e.Source && x.Tool == pw.Tool && x.Effect == config.ReadOnly && x.Disabled == "" {
			pe = x
		}
	}
	if pe == nil {
		return fetched{text: "(no preview: " + pw.Tool + " is not an allowlisted read-only tool of this server)"}
	}
	var args map[string]any
	json.Unmarshal(mc.Arguments, &args)
	picked := make(map[string]any, len(pw.Args))
	for _, name := range pw.Args {
		if v, ok := args[name]; ok {
			picked[name] = v
		}
	}
	raw, _ := json.Marshal(picked)
	if v := pe.Validate(raw); len(v) > 0 {
		return fetched{text: "(no preview: " + v[0].String() + ")"}
	}
	sum := sha256.Sum256([]byte(mc.ID))
	reqID := runID + ".preview." + hex.EncodeToString(sum[:4])
	raw = withRequestID(pe, raw, reqID)
	hc := &eventlog.HarnessCallData{Purpose: "preview", Source: e.Source, Tool: pw.Tool, Digest: Digest(raw), Summary: argsSummary(raw), RequestID: reqID}
	ctx, cancel := context.WithTimeout(source.WithRequestID(ctx, reqID), previewTimeout)
	defer cancel()
	start := time.Now()
	res, err := h.sources[e.Source].Call(ctx, pw.Tool, raw)
	hc.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		hc.State, hc.Reason = eventlog.Failed, err.Error()
		if ce, ok := errors.AsType[*source.CallError](err); ok {
			hc.Outcome = ce.Outcome.String()
			if ce.Outcome.Unknown() {
				hc.State = eventlog.Unknown
			}
		}
		return fetched{text: "(no preview: " + err.Error() + ")", call: hc}
	}
	hc.State, hc.Outcome, hc.ResultBytes, hc.ServerRequestID = eventlog.Succeeded, "answered", int64(len(res.Raw)), source.ServerRequestID(res.Raw)
	if res.IsError {
		hc.State = eventlog.Failed
	}
	text := res.Text()
	if len(text) > maxFetchedPreview {
		text = text[:maxFetchedPreview] + fmt.Sprintf("\n[preview cut at %d of %d bytes]", maxFetchedPreview, len(text))
	}
	return fetched{text: text, call: hc}
}

// previewTimeout bounds a preview call.
const previewTimeout = 30 * time.Second

// Digest is the digest of a call's arguments that an approval names:
// "sha256:" and the hex SHA-256 of their canonical JSON (sorted keys).
func Digest(args json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			args = b
		}
	}
	sum := sha256.Sum256(args)
	return "sha256:" + hex.EncodeToString(sum[:])
}
