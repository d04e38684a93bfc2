package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/audit"
	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
)

// newLocal returns a harness over a temporary workspace with the local
// source, and the workspace.
func newLocal(t *testing.T, m model.Model, writeEffect string) (*Harness, string) {
	t.Helper()
	cfg, ws := localConfig(t, writeEffect)
	return startLocal(t, cfg, m), ws
}

// localConfig configures a temporary state directory and a temporary
// workspace served by the local source, and returns the workspace.
func localConfig(t *testing.T, writeEffect string) (*config.Config, string) {
	t.Helper()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Demo\n\nThe demo repository holds one file. It exists for tests. Nothing else is in it. A fourth sentence.\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=secret"), 0o644)
	yaml := "state_dir: " + t.TempDir() + "\nlocal:\n  workspace: " + ws + "\n  tools:\n    list_files: {effect: read_only}\n    read_file: {effect: read_only}\n"
	if writeEffect != "" {
		yaml += "    write_note: {effect: " + writeEffect + "}\n"
	}
	cfg, err := config.Parse([]byte(yaml), "/")
	if err != nil {
		t.Fatal(err)
	}
	return cfg, ws
}

func startLocal(t *testing.T, cfg *config.Config, m model.Model) *Harness {
	t.Helper()
	h, err := New(context.Background(), Options{Config: cfg, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func submitWait(t *testing.T, h *Harness, task string) Status {
	t.Helper()
	ctx := context.Background()
	id, err := h.Submit(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	st, err := h.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func states(st Status) string {
	var s []string
	for _, c := range st.Calls {
		s = append(s, c.Alias+":"+c.State)
	}
	return strings.Join(s, " ")
}

func TestDemoLocal(t *testing.T) {
	h, _ := newLocal(t, model.NewScripted(model.DemoPlan(nil)), "")
	st := submitWait(t, h, model.DemoTask)
	if st.State != eventlog.Completed {
		t.Fatalf("run %s (%s); calls %s", st.State, st.Reason, states(st))
	}
	if got := states(st); got != "list_files:succeeded read_file:succeeded" {
		t.Errorf("calls: %s", got)
	}
	want := "The demo repository holds one file. It exists for tests. Nothing else is in it."
	if st.Answer != want {
		t.Errorf("answer %q; want %q", st.Answer, want)
	}
	recs, err := audit.Run(h.RunsDir(), st.Run)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Source != "local" || r.Tool == "" || r.Digest == "" || r.Summary == "" || r.Start.IsZero() ||
			r.Duration <= 0 || r.ResultBytes == 0 || r.State != eventlog.Succeeded || r.Artifact == "" {
			t.Errorf("incomplete audit record: %+v", r)
		}
	}
}

func TestNotAllowlisted(t *testing.T) {
	plan := model.Plan{Name: "fault1", Steps: []model.Step{
		{Tool: "write_note", Args: map[string]any{"path": "x.md", "text": "hi"}},
		{Tool: "read_file", Args: map[string]any{"path": ".env"}},
		{Tool: "read_file", Args: map[string]any{"path": "README.md", "extra": 1}},
		{Answer: model.AnswerReport},
	}}
	h, ws := newLocal(t, model.NewScripted(plan), "")
	st := submitWait(t, h, "write a note")
	if st.State != eventlog.Completed {
		t.Fatalf("run %s (%s)", st.State, st.Reason)
	}
	if got := states(st); got != "write_note:permission_denied read_file:permission_denied read_file:failed" {
		t.Errorf("calls: %s", got)
	}
	if !strings.Contains(st.Answer, "write_note failed: permission_denied: not an allowlisted tool") {
		t.Errorf("answer: %q", st.Answer)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.md")); err == nil {
		t.Error("the refused write happened")
	}
}

func TestApproval(t *testing.T) {
	plan := model.Plan{Name: "note", Steps: []model.Step{
		{Tool: "write_note", Args: map[string]any{"path": "notes/summary.md", "text": "Three sentences."}},
		{Answer: model.AnswerReport},
	}}
	h, ws := newLocal(t, model.NewScripted(plan), "write")
	ctx := context.Background()

	st := submitWait(t, h, "write a note")
	if st.State != eventlog.WaitingForApproval || len(st.Calls) != 1 || st.Calls[0].State != eventlog.WaitingForApproval {
		t.Fatalf("run %s; calls %s", st.State, states(st))
	}
	c := st.Calls[0]
	if want := "{\n  \"path\": \"notes/summary.md\",\n  \"text\": \"(16 bytes, shown below)\"\n}\n--- text ---\nThree sentences."; c.Preview != want {
		t.Errorf("preview %q; want %q", c.Preview, want)
	}
	if _, err := os.Stat(filepath.Join(ws, "notes")); err == nil {
		t.Fatal("the write happened before approval")
	}
	if err := h.Approve(st.Run, c.ID, Digest([]byte(`{"path":"notes/other.md","text":"Three sentences."}`)), c.Definition, "alice"); err == nil {
		t.Error("approval of other arguments accepted")
	}
	if err := h.Approve(st.Run, c.ID, c.Digest, "sha256:other", "alice"); err == nil {
		t.Error("approval of another definition accepted")
	}
	if err := h.Approve(st.Run, c.ID, c.Digest, c.Definition, "alice"); err != nil {
		t.Fatal(err)
	}
	st, _ = h.Wait(ctx, st.Run)
	if st.State != eventlog.Completed || states(st) != "write_note:succeeded" {
		t.Fatalf("after approval: run %s (%s); calls %s", st.State, st.Reason, states(st))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes", "summary.md")); string(b) != "Three sentences." {
		t.Errorf("note = %q", b)
	}

	recs, _ := audit.Run(h.RunsDir(), st.Run)
	if a := recs[0].Approval; a == nil || a.By != "alice" || a.Digest != c.Digest || a.Definition != c.Definition || a.At.IsZero() {
		t.Errorf("audit approval: %+v", recs[0].Approval)
	}

	st = submitWait(t, h, "write a note")
	if err := h.Deny(st.Run, st.Calls[0].ID, "bob", "not now"); err != nil {
		t.Fatal(err)
	}
	st, _ = h.Wait(ctx, st.Run)
	if st.State != eventlog.Completed || states(st) != "write_note:denied" || !strings.Contains(st.Answer, "a person denied this call") {
		t.Fatalf("after denial: run %s; calls %s; answer %q", st.State, states(st), st.Answer)
	}
}

// TestEventsReportedDurable checks that the observer sees no event before
// it is on disk, although a model's reply, the policy's decisions and a
// call's result are staged for the next fsync rather than synced each.
func TestEventsReportedDurable(t *testing.T) {
	h, _ := newLocal(t, model.NewScripted(model.DemoPlan(nil)), "")
	var (
		mu       sync.Mutex
		observed []eventlog.Type
	)
	h.observe = func(ev eventlog.Event) {
		h.mu.Lock()
		r := h.runs[ev.Run]
		h.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		observed = append(observed, ev.Type)
		if r != nil && ev.Seq > r.log.Durable() {
			t.Errorf("event %d (%s) reported before it was durable (up to %d)", ev.Seq, ev.Type, r.log.Durable())
		}
	}
	st := submitWait(t, h, model.DemoTask)
	if st.State != eventlog.Completed {
		t.Fatalf("run %s (%s)", st.State, st.Reason)
	}
	events, err := eventlog.Read(filepath.Join(h.RunsDir(), st.Run, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(observed) != len(events) {
		t.Errorf("%d events observed, %d in the log", len(observed), len(events))
	}
	for i := range min(len(observed), len(events)) {
		if observed[i] != events[i].Type {
			t.Errorf("event %d observed as %s, logged as %s", i+1, observed[i], events[i].Type)
		}
	}
}

// TestArtifactsInTheLog: a run keeps its artifacts in its log, where one
// sync covers them with the events naming them, and writes no pack.
func TestArtifactsInTheLog(t *testing.T) {
	h, _ := newLocal(t, model.NewScripted(model.DemoPlan(nil)), "")
	st := submitWait(t, h, model.DemoTask)
	if st.State != eventlog.Completed {
		t.Fatalf("run %s (%s)", st.State, st.Reason)
	}
	if _, err := os.Stat(filepath.Join(h.RunsDir(), st.Run, "artifacts")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run has an artifacts directory (%v)", err)
	}
	_, held, err := eventlog.ReadHeld(filepath.Join(h.RunsDir(), st.Run, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Calls {
		if !held(c.Artifact) {
			t.Errorf("call %s's artifact %s is not in the log", c.ID, c.Artifact)
		}
	}
}
