package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/testbin"
)

var bins = testbin.New()

func TestMain(m *testing.M) {
	if os.Getenv(rawServerEnv) == "1" {
		if err := serveRaw(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(bins.Run(m))
}

// testserver returns the path of this package's command, built once.
func testserver(t testing.TB) string { return bins.Build(t, ".") }

// proc is the testserver running as a subprocess over stdio.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *strings.Builder
	mu     sync.Mutex // guards stdin
}

func start(t *testing.T) *proc {
	t.Helper()
	cmd := exec.Command(testserver(t))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), stderr: &stderr}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (p *proc) send(line string) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// message is a reply as the tests look at it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// recv reads one line of stdout, which must be a JSON-RPC message.
func (p *proc) recv() message {
	p.t.Helper()
	line, err := p.stdout.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("read: %v (stderr: %s)", err, p.stderr)
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("stdout carried a line that is not JSON-RPC: %q", line)
	}
	return m
}

func call(id int, tool string, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func TestStrayOutputNeverReachesStdout(t *testing.T) {
	p := start(t)
	p.send(call(1, "print_stdout", "{}"))
	m := p.recv()
	if m.Result == nil || m.Result.IsError {
		t.Fatalf("print_stdout failed: %+v (stderr: %s)", m, p.stderr)
	}
	p.stdin.Close()
	if rest, _ := io.ReadAll(p.stdout); len(rest) > 0 {
		t.Errorf("stdout carried more than the protocol: %q", rest)
	}
	p.cmd.Wait()
	for _, s := range []string{"stray print from the tool", "stray write to os.Stdout", "stray write to file descriptor 1", "stray print from a child"} {
		if !strings.Contains(p.stderr.String(), s) {
			t.Errorf("stderr lacks %q", s)
		}
	}
}

func TestGuardKeepsServing(t *testing.T) {
	p := start(t)
	huge := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 20<<20) + `"}}}`
	steps := []struct {
		line     string
		wantID   string
		wantCode int
	}{
		{"not json at all", "null", -32700},
		{huge, "2", -32600},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"after"}}}`, "3", 0},
	}
	for _, s := range steps {
		p.send(s.line)
		m := p.recv()
		if string(m.ID) != s.wantID {
			t.Errorf("%.40s: reply id %s, want %s", s.line, m.ID, s.wantID)
		}
		switch {
		case s.wantCode == 0 && (m.Result == nil || m.Result.IsError):
			t.Errorf("%.40s: want a result, got %+v", s.line, m)
		case s.wantCode != 0 && (m.Error == nil || m.Error.Code != s.wantCode):
			t.Errorf("%.40s: want error %d, got %+v", s.line, s.wantCode, m)
		}
	}
}

func TestConcurrentCallsAllAnswered(t *testing.T) {
	p := start(t)
	const n = 50
	for i := range n {
		// Later calls finish first: replies come back out of order.
		p.send(call(100+i, "sleep", fmt.Sprintf(`{"millis":%d}`, (n-i)*2)))
	}
	seen := make(map[string]bool)
	for range n {
		m := p.recv()
		if m.Result == nil || m.Result.IsError {
			t.Errorf("call %s failed: %+v", m.ID, m)
		}
		seen[string(m.ID)] = true
	}
	if len(seen) != n {
		t.Errorf("got %d distinct replies, want %d", len(seen), n)
	}
}

func TestEndOfInputLetsCallsFinish(t *testing.T) {
	p := start(t)
	p.send(call(1, "sleep", `{"millis":300}`))
	p.stdin.Close()
	m := p.recv()
	if string(m.ID) != "1" || m.Result == nil || m.Result.IsError {
		t.Errorf("the call in flight at end of input: %+v", m)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit: %v, want status 0", err)
	}
}

func TestSignalEndsCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := start(t)
			p.cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- p.cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("exit after %v: %v, want status 0", sig, err)
				}
			case <-time.After(30 * time.Second): // a hang, not a speed limit
				t.Fatalf("still running 30s after %v", sig)
			}
		})
	}
}
