package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/harness/artifact"
	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
)

// BenchmarkReadOnlyCall measures one read-only call (read_file of a small
// README on the filesserver fixture, over stdio) made bare through client/
// ("client", the baseline) and as a model's tool call through the harness
// ("harness": policy, validation, the fsynced intent and state events,
// the artifact, the tool result, all but the model's turn; runs of eight
// calls, so ns/op also carries a share of creating each run). "append"
// measures one synced event alone, and "artifact" one artifact and the
// event naming it, synced together, to show what the difference is made
// of. bench/harness.sh compares medians.
func BenchmarkReadOnlyCall(b *testing.B) {
	bin := buildBench(b, "github.com/repo-mcp/repo-mcp/internal/filesserver")
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Bench\n\nA small file. It is read again and again.\n"), 0o644)

	b.Run("client", func(b *testing.B) { benchmarkClient(b, bin, ws, 0) })
	// A bare call after a pause as long as harness-think's model takes:
	// the baseline of harness-think, since a server idle for a while
	// answers later than one called back to back.
	b.Run("client-think", func(b *testing.B) { benchmarkClient(b, bin, ws, 2*time.Millisecond) })
	b.Run("harness", func(b *testing.B) { benchmarkHarness(b, bin, ws, 0) })
	// The model takes 2 ms a turn, as a real one takes far longer, so the
	// harness's work is spread as it is in real use; the model's time is
	// not counted.
	b.Run("harness-think", func(b *testing.B) { benchmarkHarness(b, bin, ws, 2*time.Millisecond) })

	b.Run("append", func(b *testing.B) {
		l, err := eventlog.Create(filepath.Join(b.TempDir(), "events.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		data := eventlog.Marshal(eventlog.CallData{State: eventlog.Executing, Attempt: 1})
		var lat []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if _, err := l.Append(eventlog.Event{Run: "r", Type: eventlog.CallState, Call: "c1", Data: data}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		benchlat.Report(b, lat)
	})

	b.Run("artifact", func(b *testing.B) {
		l, err := eventlog.Create(filepath.Join(b.TempDir(), "events.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		var lat []time.Duration
		for i := 0; i < b.N; i++ {
			raw := fmt.Appendf(nil, `{"content":[{"type":"text","text":"# Bench %d"}]}`, i) // a new artifact each time
			start := time.Now()
			ref := artifact.Of(raw)
			if err := l.StageArtifact(ref.Digest, raw); err != nil {
				b.Fatal(err)
			}
			if _, err := l.Append(eventlog.Event{Run: "r", Type: eventlog.CallState, Call: "c1", Data: eventlog.Marshal(eventlog.CallData{State: eventlog.Succeeded, Artifact: ref.Digest})}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		benchlat.Report(b, lat)
	})
}

// benchmarkClient times read-only calls made bare through client/, each
// after a pause (not counted).
func benchmarkClient(b *testing.B, bin, ws string, pause time.Duration) {
	ctx := context.Background()
	c, err := client.Start(ctx, client.Command{Path: bin, Args: []string{"-root", ws}}, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	args := map[string]string{"path": "README.md"}
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		time.Sleep(pause)
		start := time.Now()
		if _, err := c.Call(ctx, "read_file", args); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	benchlat.Report(b, lat)
}

// callsPerRun is how many calls a run of benchmarkHarness makes: per-call
// figures without the cost of an ever longer conversation.
const callsPerRun = 8

// benchmarkHarness times read-only calls made as a model's tool calls
// through the harness, from one tool result to the next, less the time
// the model took in between (think per turn, and what sleeping took more).
func benchmarkHarness(b *testing.B, bin, ws string, think time.Duration) {
	ctx := context.Background()
	cfg, err := config.Parse(fmt.Appendf(nil, `state_dir: %s
servers:
  files:
    command: [%s, -root, %s]
    workspace: %s
    approve: first_use
    tools:
      read_file: {effect: read_only, paths: [path]}
`, b.TempDir(), bin, ws, ws), "/")
	if err != nil {
		b.Fatal(err)
	}
	var (
		mu      sync.Mutex
		last    time.Time
		thought time.Duration // the model's time up to last
		lat     []time.Duration
	)
	m := &repeatModel{calls: callsPerRun, tool: "files_read_file", think: think}
	observe := func(ev eventlog.Event) {
		switch ev.Type {
		case eventlog.RunState, eventlog.ToolResult:
			mu.Lock()
			now, t := time.Now(), m.thought()
			if ev.Type == eventlog.ToolResult {
				lat = append(lat, now.Sub(last)-(t-thought))
			}
			last, thought = now, t
			mu.Unlock()
		}
	}
	h, err := New(ctx, Options{Config: cfg, Model: m, Observe: observe})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ResetTimer()
	for done := 0; done < b.N; done += callsPerRun {
		id, err := h.Submit(ctx, "read it again and again")
		if err != nil {
			b.Fatal(err)
		}
		st, err := h.Wait(ctx, id)
		if err != nil || st.State != eventlog.Completed {
			b.Fatalf("run %s (%s), %v", st.State, st.Reason, err)
		}
	}
	b.StopTimer()
	benchlat.Report(b, lat)
}

// repeatModel asks for the same read-only call until it made calls of
// them, then answers.
type repeatModel struct {
	calls int
	tool  string
	think time.Duration // how long each turn takes

	mu    sync.Mutex
	spent time.Duration // in Next, in all
}

func (m *repeatModel) Name() string { return "bench:repeat" }

// thought is the time spent in Next so far.
func (m *repeatModel) thought() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

func (m *repeatModel) Next(_ context.Context, req model.Request) (model.Reply, error) {
	start := time.Now()
	defer func() {
		m.mu.Lock()
		m.spent += time.Since(start)
		m.mu.Unlock()
	}()
	time.Sleep(m.think)
	k := 0
	for _, msg := range req.Messages {
		if msg.Role == model.Assistant {
			k++
		}
	}
	if k >= m.calls {
		return model.Reply{Text: "done"}, nil
	}
	return model.Reply{Calls: []model.ToolCall{{ID: fmt.Sprintf("call_%d", k+1), Name: m.tool, Arguments: json.RawMessage(`{"path":"README.md"}`)}}}, nil
}

func buildBench(b *testing.B, pkg string) string {
	b.Helper()
	out := filepath.Join(b.TempDir(), filepath.Base(pkg))
	if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}
