package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// replica is one repo-mcp serve --http process a test started, with its
// stderr (log and audit lines) kept.
type replica struct {
	cmd     *exec.Cmd
	url     string // of /mcp
	base    string // http://host:port
	metrics string // of /metrics, when --metrics-addr was given
	done    chan struct{}

	mu    sync.Mutex
	lines []string
}

// startReplica starts repo-mcp with args and waits until it serves HTTP.
// It is killed when the test ends, if it still runs.
func startReplica(t testing.TB, args ...string) *replica {
	t.Helper()
	r := &replica{cmd: exec.Command(repoMCP(t), args...), done: make(chan struct{})}
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.kill() })
	ready := make(chan struct{})
	go r.read(stderr, ready)
	select {
	case <-ready:
	case <-r.done:
		t.Fatalf("repo-mcp exited before serving:\n%s", r.log())
	case <-time.After(time.Minute):
		t.Fatalf("repo-mcp did not serve within a minute:\n%s", r.log())
	}
	return r
}

// read keeps stderr's lines, and closes ready once the server logs its URL.
func (r *replica) read(stderr io.Reader, ready chan struct{}) {
	sc := bufio.NewScanner(stderr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec struct{ Msg, URL string }
		json.Unmarshal([]byte(line), &rec)
		r.mu.Lock()
		r.lines = append(r.lines, line)
		switch rec.Msg {
		case "serving metrics":
			r.metrics = rec.URL
		case "serving MCP over HTTP":
			r.url = rec.URL
			r.base = strings.TrimSuffix(rec.URL, "/mcp")
			close(ready)
		}
		r.mu.Unlock()
	}
	r.cmd.Wait()
	close(r.done)
}

// log returns the stderr lines so far.
func (r *replica) log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// audit returns the audit lines (one per call) so far, decoded.
func (r *replica) audit() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, line := range r.lines {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "tool call" {
			out = append(out, m)
		}
	}
	return out
}

// stop sends sig and waits for the process to exit, at most d.
func (r *replica) stop(sig syscall.Signal, d time.Duration) error {
	r.cmd.Process.Signal(sig)
	select {
	case <-r.done:
		return nil
	case <-time.After(d):
		return fmt.Errorf("repo-mcp did not exit within %v of %v", d, sig)
	}
}

func (r *replica) kill() {
	r.cmd.Process.Kill()
	<-r.done
}
