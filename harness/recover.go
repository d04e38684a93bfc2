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
	events, err := eventlog.Read(filepath.Join(dir, "events.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %q", ErrNoRun, id)
	}
	if err != nil {
		return nil, err
	}
	n, err := standing(dir, nil, events)
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

// standing returns how many of a run's events stand. A call's result is
// written to the log while its artifact is synced (eventlog's StageAfter),
// so a crash of the machine can leave events naming an artifact that the
// store lost: such an event, and every event after it, was never reported
// or acted on, since the log's next sync waits for the artifact's. Only
// the artifacts named last can be missing (the intent of each call, synced
// before the call is sent, waited for the artifacts named before it), so
// the check goes back from the end until it finds one whole. store is the
// run's, or nil to open it from dir if an event names an artifact.
func standing(dir string, store *artifact.Store, events []eventlog.Event) (int, error) {
	n := len(events)
	for i := len(events) - 1; i >= 0; i-- {
		digest := namedArtifact(events[i])
		if digest == "" {
			continue
		}
		if store == nil {
			var err error
			if store, err = artifact.NewStore(filepath.Join(dir, "artifacts")); err != nil {
				return 0, err
			}
		}
		if _, err := store.Get(digest); err == nil {
			break
		}
		n = i
	}
	return n, nil
}

// namedArtifact is the artifact a call_state event names, or "".
func namedArtifact(ev eventlog.Event) string {
	if ev.Type != eventlog.CallState {
		return ""
	}
	var d struct {
		Artifact string `json:"artifact"`
	}
	if ev.Decode(&d) != nil {
		return ""
	}
	return d.Artifact
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
	store, err := artifact.NewStore(filepath.Join(dir, "artifacts"))
	if err != nil {
		return err
	}
	log, events, err := eventlog.Open(filepath.Join(dir, "events.jsonl"), func(events []eventlog.Event) (int, error) {
		return standing(dir, store, events)
	})
	if err != nil {
		return err
	}
	r := &run{id: id, dir: dir, log: log, store: store}
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
