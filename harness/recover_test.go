package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
)

// TestRecoverCutsEventsNamingLostArtifacts: a crash of the machine can
// lose an artifact written to the log but not synced, and with it the
// events after it, which name it: a restart goes on from what stands, the
// read-only call is retried and its answer stored again. A run recorded
// before logs held artifacts wrote them to a pack of its own while its
// log named them, so a crash could leave the log naming an artifact the
// pack lost: a restart cuts the log before the first event naming one.
// A log whose artifacts are whole is left as it is.
func TestRecoverCutsEventsNamingLostArtifacts(t *testing.T) {
	tests := []struct {
		name   string
		pack   bool // the run was recorded with its artifacts in a pack
		lose   bool
		events int // what stands of the run's log after the restart, before it resumes
	}{
		// run_created, running, then per call model_reply, proposed, ready,
		// executing, succeeded, tool_result; the answer's model_reply,
		// answer and completed.
		{"artifacts whole", false, false, 2 + 6 + 6 + 3},
		// What stands leaves read_file executing, and the restart adds
		// unknown, interrupted, the automatic retry and ready.
		{"last artifact lost", false, true, 2 + 6 + 4 + 4},
		{"recorded with a pack, whole", true, false, 2 + 6 + 6 + 3},
		{"recorded with a pack, last artifact lost", true, true, 2 + 6 + 4 + 4},
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
			dir := filepath.Join(h.RunsDir(), st.Run)
			log := filepath.Join(dir, "events.jsonl")
			switch {
			case tt.pack:
				toPack(t, dir)
				if tt.lose {
					loseArtifact(t, filepath.Join(dir, "artifacts", "pack"), st.Calls[1].Artifact)
				}
			case tt.lose:
				loseLine(t, log, `{"artifact":"`+st.Calls[1].Artifact+`"`)
			}

			h = startLocal(t, cfg, model.NewScripted(model.DemoPlan(nil)))
			events, err := eventlog.Read(log)
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
			for _, c := range again.Calls {
				if _, err := r.artifact(c.Artifact); err != nil {
					t.Errorf("call %s's answer: %v", c.ID, err)
				}
			}
		})
	}
}

// loseLine overwrites the line of a log that starts with prefix with
// zeros, as a crash can leave a line written but not synced.
func loseLine(t *testing.T, log, prefix string) {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("\n"+prefix))
	if i < 0 {
		t.Fatalf("no line of %s starts with %s", log, prefix)
	}
	line := data[i+1:]
	clear(line[:bytes.IndexByte(line, '\n')+1])
	if err := os.WriteFile(log, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// toPack moves the artifacts of a run's log to a pack of their own, as
// the run was recorded before logs held them.
func toPack(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var log, pack bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var a struct {
			Digest string `json:"artifact"`
			Data   []byte `json:"base64"`
		}
		if !bytes.HasPrefix(line, []byte(`{"artifact":`)) {
			log.Write(line)
		} else if err := json.Unmarshal(line, &a); err != nil {
			t.Fatal(err)
		} else {
			fmt.Fprintf(&pack, "%s %d\n%s\n", a.Digest, len(a.Data), a.Data)
		}
	}
	if pack.Len() == 0 {
		t.Fatal("the log holds no artifact")
	}
	must(t, os.MkdirAll(filepath.Join(dir, "artifacts"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "artifacts", "pack"), pack.Bytes(), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), log.Bytes(), 0o600))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
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
