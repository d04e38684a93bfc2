package eventlog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReservedZeros: a log writes its lines over zeros it reserved ahead,
// which readers ignore while it is open and after a crash; Close gives
// them back, and Open cuts them before appending.
func TestReservedZeros(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []Type{RunCreated, RunState} {
		if _, err := l.Append(Event{Run: "r", Type: typ}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	lines := bytes.TrimRight(data, "\x00")
	if len(data) != reserve || len(lines) == len(data) || bytes.IndexByte(lines, 0) >= 0 {
		t.Fatalf("the open log is %d bytes, %d of them lines; want %d, the rest zeros", len(data), len(lines), reserve)
	}
	crashed := filepath.Join(t.TempDir(), "events.jsonl") // what a crash leaves: the zeros
	if err := os.WriteFile(crashed, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if events, err := Read(path); err != nil || len(events) != 2 {
		t.Fatalf("Read of the open log: %d events, %v", len(events), err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if closed, _ := os.ReadFile(path); !bytes.Equal(closed, lines) {
		t.Errorf("after Close the log is %d bytes; want its %d bytes of lines", len(closed), len(lines))
	}

	l, events, err := Open(crashed, nil)
	if err != nil || len(events) != 2 {
		t.Fatalf("Open after a crash: %d events, %v", len(events), err)
	}
	if st, err := os.Stat(crashed); err != nil || st.Size() != int64(len(lines)) {
		t.Fatalf("Open left the zeros: the log is %d bytes; want %d (%v)", st.Size(), len(lines), err)
	}
	if ev, err := l.Append(Event{Run: "r", Type: Answer}); err != nil || ev.Seq != 3 {
		t.Fatalf("append after the zeros were cut: seq %d, %v", ev.Seq, err)
	}
	l.Close()
	if events, err := Read(crashed); err != nil || len(events) != 3 || events[2].Type != Answer {
		t.Fatalf("after appending: %d events, %v", len(events), err)
	}
}

// TestArtifacts: a log holds artifacts as lines of their own, once per
// digest, in base64, and reads them back, open or reopened; Read leaves
// them out of the events.
func TestArtifacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	answer := []byte("{\"text\":\"\x1b[31mred\"}\n") // an escape a terminal would act on
	for range 2 {
		if err := l.StageArtifact("sha256:aa", answer); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Append(Event{Run: "r", Type: CallState, Data: Marshal(CallData{State: Succeeded, Artifact: "sha256:aa"})}); err != nil {
		t.Fatal(err)
	}
	if got, held, err := l.Artifact("sha256:aa"); err != nil || !held || !bytes.Equal(got, answer) {
		t.Fatalf("Artifact = %q, %v, %v", got, held, err)
	}
	if _, held, err := l.Artifact("sha256:bb"); held || err != nil {
		t.Errorf("Artifact of a digest never stored: held %v, %v", held, err)
	}
	l.Close()
	data, _ := os.ReadFile(path)
	if n := bytes.Count(data, artifactPrefix); n != 1 {
		t.Errorf("the artifact is in the log %d times; want once", n)
	}
	if bytes.IndexByte(data, 0x1b) >= 0 {
		t.Error("the artifact's escape is in the log raw")
	}
	if got, held, err := ReadArtifact(path, "sha256:aa"); err != nil || !held || !bytes.Equal(got, answer) {
		t.Fatalf("ReadArtifact = %q, %v, %v", got, held, err)
	}
	events, held, err := ReadHeld(path)
	if err != nil || len(events) != 1 || events[0].Seq != 1 || !held("sha256:aa") || held("sha256:bb") {
		t.Fatalf("ReadHeld: %d events, held %v, %v", len(events), held("sha256:aa"), err)
	}
	l, _, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got, held, err := l.Artifact("sha256:aa"); err != nil || !held || !bytes.Equal(got, answer) {
		t.Fatalf("Artifact after reopening = %q, %v, %v", got, held, err)
	}
	// An artifact longer than the reserve and than a reader's buffer.
	large := bytes.Repeat([]byte("0123456789abcdef"), 3*reserve/16)
	if err := l.StageArtifact("sha256:cc", large); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(Event{Run: "r", Type: CallState, Data: Marshal(CallData{State: Succeeded, Artifact: "sha256:cc"})}); err != nil {
		t.Fatal(err)
	}
	if got, held, err := ReadArtifact(path, "sha256:cc"); err != nil || !held || !bytes.Equal(got, large) {
		t.Fatalf("ReadArtifact of %d bytes: %d bytes, %v, %v", len(large), len(got), held, err)
	}
	if events, err := Read(path); err != nil || len(events) != 2 || events[1].Seq != 2 {
		t.Fatalf("after a large artifact: %d events, %v", len(events), err)
	}
}

// TestLostLines: what a crash can leave of lines written but not synced.
// A log stands up to the first zero byte (a line whose page the crash
// lost, or the reserved tail) or the first line cut short at the end, so
// an artifact and the events after it (those that name it) are lost
// together; a line that is not one, followed by complete lines, is
// corruption.
func TestLostLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, _ := Create(path)
	l.Append(Event{Run: "r", Type: RunCreated})
	l.StageArtifact("sha256:aa", []byte("the answer"))
	l.Append(Event{Run: "r", Type: CallState, Data: Marshal(CallData{State: Succeeded, Artifact: "sha256:aa"})})
	l.Close()
	clean, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(clean), "\n") // event, artifact, event, ""
	zeros := func(n int) string { return strings.Repeat("\x00", n) }
	tests := []struct {
		name    string
		log     string
		events  int
		held    bool
		corrupt bool
	}{
		{"whole", string(clean), 2, true, false},
		{"whole, then zeros", string(clean) + zeros(100), 2, true, false},
		{"artifact's page lost", lines[0] + zeros(len(lines[1])) + lines[2], 1, false, false},
		{"artifact's page lost, later lines whole", lines[0] + zeros(len(lines[1])) + lines[2] + lines[0], 1, false, false},
		{"artifact lost in part", lines[0] + lines[1][:20] + zeros(len(lines[1])-20) + lines[2], 1, false, false},
		{"artifact cut short", lines[0] + lines[1][:30], 1, false, false},
		{"last event cut short, then zeros", lines[0] + lines[1] + lines[2][:10] + zeros(50), 1, true, false},
		{"artifact's size wrong, at the end", lines[0] + strings.Replace(lines[1], `"size":10`, `"size":11`, 1), 1, false, false},
		{"garbage before complete lines", lines[0] + "garbage\n" + lines[2], 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "events.jsonl")
			os.WriteFile(p, []byte(tt.log), 0o600)
			events, held, err := ReadHeld(p)
			if tt.corrupt {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil || len(events) != tt.events || held("sha256:aa") != tt.held {
				t.Fatalf("%d events, artifact held %v, %v; want %d, %v", len(events), held("sha256:aa"), err, tt.events, tt.held)
			}
			l, events, err := Open(p, nil)
			if err != nil || len(events) != tt.events {
				t.Fatalf("Open: %d events, %v", len(events), err)
			}
			if _, err := l.Append(Event{Run: "r", Type: Answer}); err != nil {
				t.Fatal(err)
			}
			l.Close()
			after, _ := os.ReadFile(p)
			if events, err := Read(p); err != nil || len(events) != tt.events+1 || bytes.IndexByte(after, 0) >= 0 {
				t.Fatalf("after Open and an append: %d events, %v; zeros left: %v", len(events), err, bytes.IndexByte(after, 0) >= 0)
			}
			var last struct{ Seq int64 }
			json.Unmarshal([]byte(strings.SplitAfter(string(after), "\n")[tt.events+countArtifacts(after)]), &last)
			if last.Seq != int64(tt.events+1) {
				t.Errorf("the appended event has seq %d; want %d", last.Seq, tt.events+1)
			}
		})
	}
}

func countArtifacts(log []byte) int { return bytes.Count(log, artifactPrefix) }
