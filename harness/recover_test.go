package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
)

// TestRecoverCutsEventsNamingLostArtifacts: a call's result reaches the
// log while its artifact is synced, so a crash of the machine can leave
// the log naming an artifact whose bytes were lost. A restart cuts the log
// before the first event naming one, as it cuts a torn line, and goes on
// from there: the read-only call is retried and its answer stored again.
// A log whose artifacts are whole is left as it is.
func TestRecoverCutsEventsNamingLostArtifacts(t *testing.T) {
	tests := []struct {
		name   string
		lose   bool
		events int // what stands of the run's log after the restart, before it resumes
	}{
		// run_created, running, then per call model_reply, proposed, ready,
		// executing, succeeded, tool_result; the answer's model_reply,
		// answer and completed.
		{"artifacts whole", false, 2 + 6 + 6 + 3},
		// The cut leaves read_file executing, and the restart adds
		// unknown, interrupted, the automatic retry and ready.
		{"last artifact lost", true, 2 + 6 + 4 + 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := localConfig(t, "")
			h := startLocal(t, cfg, model.NewScripted(model.DemoPlan(nil)))
			st := submitWait(t, h, model.DemoTask)
			if st.State != eventlog.Completed || states(st) != "list_files:succeeded read_file:succeeded" {
				t.Fatalf("run %s (%s); calls %s", st.State, st.Reason, states(st))
			}
			h.Close()
			if tt.lose {
				loseArtifact(t, filepath.Join(h.RunsDir(), st.Run, "artifacts", "pack"), st.Calls[1].Artifact)
			}

			h = startLocal(t, cfg, model.NewScripted(model.DemoPlan(nil)))
			events, err := eventlog.Read(filepath.Join(h.RunsDir(), st.Run, "events.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != tt.events {
				t.Fatalf("%d events after the restart; want %d", len(events), tt.events)
			}
			if !tt.lose {
				if len(h.Recovered()) != 0 {
					t.Errorf("recovered %v; want none", h.Recovered())
				}
				return
			}
			if !slices.Equal(h.Recovered(), []string{st.Run}) {
				t.Fatalf("recovered %v; want [%s]", h.Recovered(), st.Run)
			}
			for _, ev := range events {
				var d eventlog.CallData
				if ev.Decode(&d); ev.Type == eventlog.CallState && d.Artifact == st.Calls[1].Artifact {
					t.Errorf("event %d names the lost artifact: %s", ev.Seq, ev.Data)
				}
			}
			if err := h.Resume(st.Run); err != nil {
				t.Fatal(err)
			}
			again, err := h.Wait(context.Background(), st.Run)
			if err != nil || again.State != eventlog.Completed || again.Answer != st.Answer {
				t.Fatalf("after resuming: run %s (%s), answer %q, %v", again.State, again.Reason, again.Answer, err)
			}
			r, err := h.get(st.Run)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.store.Get(again.Calls[1].Artifact); err != nil {
				t.Errorf("the answer stored again: %v", err)
			}
		})
	}
}

// loseArtifact overwrites the bytes of an artifact in a pack with zeros,
// as a crash can leave a record written but not synced.
func loseArtifact(t *testing.T, pack, digest string) {
	t.Helper()
	data, err := os.ReadFile(pack)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(digest+" "))
	if i < 0 {
		t.Fatalf("%s is not in the pack", digest)
	}
	var size int
	header := data[i:]
	header = header[:bytes.IndexByte(header, '\n')+1]
	if _, err := fmt.Sscanf(string(header), digest+" %d\n", &size); err != nil {
		t.Fatal(err)
	}
	clear(data[i+len(header) : i+len(header)+size])
	if err := os.WriteFile(pack, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
