package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/jsonl"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "repo-harness-test-bin")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var builds sync.Map // package -> *buildResult

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// build compiles a main package once per test run.
func build(t testing.TB, pkg string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(pkg, &buildResult{})
	b := v.(*buildResult)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, filepath.Base(pkg))
		out, err := exec.Command("go", "build", "-o", b.path, pkg).CombinedOutput()
		if err != nil {
			b.err = errors.New(string(out))
		}
	})
	if b.err != nil {
		t.Fatalf("go build %s: %v", pkg, b.err)
	}
	return b.path
}

func harnessBin(t testing.TB) string {
	return build(t, "github.com/repo-mcp/repo-mcp/cmd/repo-harness")
}

func filesserverBin(t testing.TB) string {
	return build(t, "github.com/repo-mcp/repo-mcp/internal/filesserver")
}

// fixture is a workspace, a state directory and a configuration for the
// harness over filesserver.
type fixture struct {
	ws, state, started, config string
}

const readme = `# Demo repository

This repository exists so that the harness has something to read. It holds a README and a Go file. Everything in it is made up by the test.

## Details

A fourth sentence that the summary leaves out.
`

func newFixture(t *testing.T, tools, model string) *fixture {
	t.Helper()
	f := &fixture{ws: t.TempDir(), state: t.TempDir()}
	f.started = filepath.Join(f.state, "started")
	must(t, os.WriteFile(filepath.Join(f.ws, "README.md"), []byte(readme), 0o644))
	must(t, os.WriteFile(filepath.Join(f.ws, "main.go"), []byte("package main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.ws, ".env"), []byte("TOKEN=secret\n"), 0o644))
	f.write(t, tools, model, "")
	return f
}

// write (re)writes the configuration; env is added to the server's.
func (f *fixture) write(t *testing.T, tools, model, env string) {
	t.Helper()
	cfg := fmt.Sprintf(`state_dir: %s
servers:
  files:
    command: [%s, -root, %s, -started, %s]
    workspace: %s
    approve: first_use
    call_timeout: 10m
    env: [%s]
    tools:
%s
model:
  kind: scripted
%s
`, f.state, filesserverBin(t), f.ws, f.started, f.ws, env, indent4(tools), model)
	f.config = filepath.Join(f.state, "harness.yaml")
	must(t, os.WriteFile(f.config, []byte(cfg), 0o644))
}

func indent4(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = "      " + strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "\n")
}

// slowCallPID waits until the n-th slow call reached a server and returns
// that server's process id.
func (f *fixture) slowCallPID(t *testing.T, n int) int {
	t.Helper()
	for {
		b, _ := os.ReadFile(f.started)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(b) > 0 && len(lines) >= n {
			pid, err := strconv.Atoi(strings.Fields(lines[n-1])[0])
			must(t, err)
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// session is a repo-harness jsonl process.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	hello  jsonl.Hello
	events []eventlog.Event
	early  map[string]jsonl.Response // responses read while waiting for something else
	nextID int
	stderr *strings.Builder
	raw    [][]byte // every line read from stdout, as it came
}

func startSession(t *testing.T, config string) *session {
	t.Helper()
	s := &session{t: t, lines: make(chan []byte, 64), early: map[string]jsonl.Response{}, stderr: &strings.Builder{}}
	s.cmd = exec.Command(harnessBin(t), "jsonl", "--config", config)
	s.cmd.Stderr = s.stderr
	var err error
	s.stdin, err = s.cmd.StdinPipe()
	must(t, err)
	stdout, err := s.cmd.StdoutPipe()
	must(t, err)
	must(t, s.cmd.Start())
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	line := s.next()
	must(t, json.Unmarshal(line, &s.hello))
	if s.hello.Type != "hello" {
		t.Fatalf("first line %s; want hello", line)
	}
	return s
}

// next returns the next output line; it fails the test at the end of output.
func (s *session) next() []byte {
	s.t.Helper()
	line, ok := <-s.lines
	if !ok {
		s.cmd.Wait()
		s.t.Fatalf("repo-harness ended (%v); stderr:\n%s", s.cmd.ProcessState, s.stderr)
	}
	s.raw = append(s.raw, line)
	return line
}

// read consumes one line: an event is collected, a response returned.
func (s *session) read() (*jsonl.Response, *eventlog.Event) {
	s.t.Helper()
	line := s.next()
	var head struct {
		Type  string         `json:"type"`
		Event eventlog.Event `json:"event"`
	}
	must(s.t, json.Unmarshal(line, &head))
	switch head.Type {
	case "event":
		s.events = append(s.events, head.Event)
		return nil, &head.Event
	case "response":
		var r jsonl.Response
		must(s.t, json.Unmarshal(line, &r))
		return &r, nil
	}
	s.t.Fatalf("unexpected line %s", line)
	return nil, nil
}

// do sends a command and returns its response.
func (s *session) do(c jsonl.Command) jsonl.Response {
	s.t.Helper()
	s.nextID++
	c.ID = strconv.Itoa(s.nextID)
	b, _ := json.Marshal(c)
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
	for {
		if r, ok := s.early[c.ID]; ok {
			return r
		}
		r, _ := s.read()
		if r == nil {
			continue
		}
		if r.ID == c.ID {
			return *r
		}
		s.early[r.ID] = *r
	}
}

// ok sends a command that must succeed.
func (s *session) ok(c jsonl.Command) jsonl.Response {
	s.t.Helper()
	r := s.do(c)
	if !r.OK {
		s.t.Fatalf("%s: %s", c.Cmd, r.Error)
	}
	return r
}

// waitEvent reads until an event matches.
func (s *session) waitEvent(match func(eventlog.Event, eventlog.CallData) bool) eventlog.Event {
	s.t.Helper()
	for _, ev := range s.events {
		if matches(ev, match) {
			return ev
		}
	}
	for {
		r, ev := s.read()
		if r != nil {
			s.early[r.ID] = *r
			continue
		}
		if matches(*ev, match) {
			return *ev
		}
	}
}

func matches(ev eventlog.Event, match func(eventlog.Event, eventlog.CallData) bool) bool {
	var d eventlog.CallData
	if ev.Type == eventlog.CallState {
		ev.Decode(&d)
	}
	return match(ev, d)
}

// callState matches the event that moves call to state.
func callState(call, state string) func(eventlog.Event, eventlog.CallData) bool {
	return func(ev eventlog.Event, d eventlog.CallData) bool {
		return ev.Type == eventlog.CallState && ev.Call == call && d.State == state
	}
}

// close ends the session: stdin closes, the harness lets its runs come to
// rest and exits.
func (s *session) close() {
	s.t.Helper()
	s.stdin.Close()
	for range s.lines {
	}
	if err := s.cmd.Wait(); err != nil {
		s.t.Fatalf("repo-harness: %v; stderr:\n%s", err, s.stderr)
	}
}

// kill ends the harness with SIGKILL.
func (s *session) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	for range s.lines {
	}
	s.cmd.Wait()
}

// submitWait submits a task and waits for its run to come to rest.
func (s *session) submitWait(task string) (string, jsonl.Response) {
	s.t.Helper()
	run := s.ok(jsonl.Command{Cmd: "submit", Task: task}).Run
	return run, s.ok(jsonl.Command{Cmd: "wait", Run: run})
}

// logEvents reads a run's log from disk.
func logEvents(t *testing.T, state, run string) []eventlog.Event {
	t.Helper()
	events, err := eventlog.Read(filepath.Join(state, "runs", run, "events.jsonl"))
	must(t, err)
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: the log lost or reordered events", i+1, ev.Seq)
		}
	}
	return events
}

func callStates(st jsonl.Response) string {
	var out []string
	for _, c := range st.Status.Calls {
		out = append(out, c.Alias+":"+c.State)
	}
	return strings.Join(out, " ")
}

// kill kills process pid at once (SIGKILL where there are signals).
func kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
