package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/repo-mcp/repo-mcp/harness/artifact"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
)

// readRun loads a run from the events of its log that stand (see
// standing), without keeping the log open.
func (h *Harness) readRun(id string) (*run, error) {
	if strings.ContainsAny(id, `/\`) || id == "" || id[0] == '.' {
		return nil, fmt.Errorf("%w: %q", ErrNoRun, id)
	}
	dir := filepath.Join(h.runsDir, id)
	events, held, err := eventlog.ReadHeld(filepath.Join(dir, "events.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %q", ErrNoRun, id)
	}
	if err != nil {
		return nil, err
	}
	n, err := standing(dir, events, held)
	if err != nil {
		return nil, err
	}
	r := &run{id: id, dir: dir}
	for _, ev := range events[:n] {
		if err := r.apply(ev); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// standing returns how many of a run's events stand. A run's log holds
// the artifacts its events name, written before them, and a log stands
// only up to the first line a crash lost, so an event of the log names an
// artifact the log holds (held). A run recorded before logs held
// artifacts wrote each call's result to the log while its artifact was
// synced to a pack of its own, so a crash of the machine can leave events
// naming an artifact the pack lost: such an event, and every event after
// it, was never reported or acted on, since the log's next sync waited
// for the artifact's. Only the artifacts named last can be missing, so
// the check goes back from the end until it finds one whole, usually the
// pack's last record (artifact.Holds).
func standing(dir string, events []eventlog.Event, held func(digest string) bool) (int, error) {
	n := len(events)
	for i := len(events) - 1; i >= 0; i-- {
		ref, ok := namedArtifact(events[i])
		if !ok {
			continue
		}
		if held(ref.Digest) {
			break
		}
		whole, err := artifact.Holds(filepath.Join(dir, "artifacts"), ref)
		if err != nil {
			return 0, err
		}
		if whole {
			break
		}
		n = i
	}
	return n, nil
}

// namedArtifact is the artifact a call_state event names, if it names
// one. The size is the artifact's for an answer stored whole, and the
// answer's for the head of one cut short (artifact.Holds then does not
// find it at the pack's end and looks it up).
func namedArtifact(ev eventlog.Event) (artifact.Ref, bool) {
	if ev.Type != eventlog.CallState {
		return artifact.Ref{}, false
	}
	var d struct {
		Artifact    string `json:"artifact"`
		ResultBytes int64  `json:"result_bytes"`
	}
	if ev.Decode(&d) != nil || d.Artifact == "" {
		return artifact.Ref{}, false
	}
	return artifact.Ref{Digest: d.Artifact, Size: d.ResultBytes}, true
}

// recover reopens every unfinished run (a run whose log ends in events
// that do not stand is unfinished without them): a call left executing
// becomes unknown, the run interrupted. Nothing is sent; read-only unknown calls are marked
// for an automatic retry, which happens when the run resumes.
func (h *Harness) recover() error {
	entries, err := os.ReadDir(h.runsDir)
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	for _, de := range entries {
		if !de.IsDir() {
			continue
		}
		done, err := h.readRun(de.Name())
		if err != nil {
			h.logger.Warn("unreadable run", "run", de.Name(), "err", err)
			continue
		}
		if terminalRun(done.state) {
			continue
		}
		if err := h.reopen(de.Name()); err != nil {
			return err
		}
	}
	return nil
}

func (h *Harness) reopen(id string) error {
	dir := filepath.Join(h.runsDir, id)
	log, events, err := eventlog.Open(filepath.Join(dir, "events.jsonl"), func(events []eventlog.Event, held func(string) bool) (int, error) {
		return standing(dir, events, held)
	})
	if err != nil {
		return err
	}
	r := &run{id: id, dir: dir, log: log}
	for _, ev := range events {
		if err := r.apply(ev); err != nil {
			log.Close()
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cid := range r.order {
		if r.calls[cid].State == eventlog.Executing {
			if err := h.record(r, eventlog.CallState, cid, eventlog.CallData{State: eventlog.Unknown, Reason: "the harness stopped while the call was executing; its effect is unknown"}); err != nil {
				return err
			}
		}
	}
	if r.state == eventlog.Running || (len(r.unknownCalls()) > 0 && r.state != eventlog.Interrupted) {
		if err := h.record(r, eventlog.RunState, "", eventlog.StateData{State: eventlog.Interrupted, Reason: "the harness restarted; nothing was sent again"}); err != nil {
			return err
		}
	}
	for _, cid := range r.unknownCalls() {
		c := r.calls[cid]
		if c.Effect == "read_only" && c.attempts <= *h.cfg.RetryReadOnly {
			note := "read_only: will be retried automatically when the run resumes"
			if err := h.record(r, eventlog.Reconcile, cid, eventlog.ReconcileData{Decision: eventlog.Retry, By: "harness", Note: note, Automatic: true}); err != nil {
				return err
			}
			if err := h.record(r, eventlog.CallState, cid, eventlog.CallData{State: eventlog.Ready, Reason: note}); err != nil {
				return err
			}
		}
	}
	h.mu.Lock()
	h.runs[id] = r
	h.recovered = append(h.recovered, id)
	h.mu.Unlock()
	return nil
}
