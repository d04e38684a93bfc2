package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
)

// session starts the misbehaving server in mode and returns the connection
// and a function that closes it and checks that nothing leaked: no process,
// no goroutine, no retained memory.
func session(t *testing.T, mode string, opts client.Options) (*client.Conn, func()) {
	t.Helper()
	cmd := misbehave(t, mode)
	leaked := leakCheck(t)
	heap := heapInuse()
	c, err := client.Start(context.Background(), cmd, opts)
	if err != nil {
		t.Fatalf("Start(%s): %v", mode, err)
	}
	return c, func() {
		t.Helper()
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		leaked(c.PID())
		// Generous: a session holds at most its bounded buffers.
		if after := heapInuse(); after > heap+8<<20 {
			t.Errorf("heap in use grew from %d to %d over the session", heap, after)
		}
	}
}

func TestHandshakeEras(t *testing.T) {
	tests := []struct {
		mode    string
		opts    client.Options
		modern  bool
		version string
	}{
		{"normal", client.Options{}, false, "2025-11-25"},
		{"normal", client.Options{Era: client.EraLegacy}, false, "2025-11-25"},
		{"modern", client.Options{}, true, "2026-07-28"},
		{"counteroffer", client.Options{}, false, "2025-06-18"},
		{"discover-hang", client.Options{Timeouts: client.Timeouts{Discover: 100 * time.Millisecond}}, false, "2025-11-25"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/era%d", tt.mode, tt.opts.Era), func(t *testing.T) {
			c, done := session(t, tt.mode, tt.opts)
			defer done()
			if s := c.Server(); s.Modern != tt.modern || s.ProtocolVersion != tt.version || s.Implementation.Name != "misbehave" {
				t.Errorf("Server() = %+v, want modern=%v version %s from misbehave", s, tt.modern, tt.version)
			}
			// In modern mode the server refuses any request without the 2026 _meta.
			res, err := c.Call(context.Background(), "echo", map[string]string{"msg": "hi"})
			if err != nil || res.Text() != "hi" {
				t.Fatalf("Call(echo) = %v, %v; want text hi", res, err)
			}
			tools, err := c.Tools(context.Background())
			if err != nil || len(tools) != 12 {
				t.Errorf("Tools() = %d tools, %v; want 12", len(tools), err)
			}
		})
	}
}

func TestHandshakeFailures(t *testing.T) {
	tests := []struct {
		mode    string
		opts    client.Options
		outcome client.Outcome
		method  string
		check   func(t *testing.T, ce *client.CallError)
	}{
		{
			mode:    "mute",
			opts:    client.Options{Timeouts: client.Timeouts{Discover: 50 * time.Millisecond, Initialize: 200 * time.Millisecond}},
			outcome: client.TimedOut, method: "initialize",
		},
		{
			mode: "exit1", outcome: client.ConnectionLost, method: "initialize",
			check: func(t *testing.T, ce *client.CallError) {
				if ce.Lost == nil || ce.Lost.ExitCode != 1 || !strings.Contains(ce.Lost.Stderr, "refusing to initialize") {
					t.Errorf("Lost = %+v; want exit code 1 and the stderr line", ce.Lost)
				}
				if !strings.Contains(ce.Error(), "exit status 1") || !strings.Contains(ce.Error(), "refusing to initialize") {
					t.Errorf("Error() = %q; want the exit status and the stderr tail", ce.Error())
				}
			},
		},
		{
			mode: "normal", opts: client.Options{Era: client.EraModern}, outcome: client.RPCError, method: "server/discover",
			check: func(t *testing.T, ce *client.CallError) {
				if ce.RPC.Code != -32601 {
					t.Errorf("RPC = %+v; want -32601", ce.RPC)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			cmd := misbehave(t, tt.mode)
			leaked := leakCheck(t)
			c, err := client.Start(context.Background(), cmd, tt.opts)
			if c != nil {
				t.Fatalf("Start succeeded; want a failure")
			}
			ce := asCallError(t, err)
			if ce.Outcome != tt.outcome || ce.Method != tt.method || !ce.Outcome.Sent() {
				t.Fatalf("Start error = %v; want %s of %s", err, tt.outcome, tt.method)
			}
			if tt.check != nil {
				tt.check(t, ce)
			}
			leaked(0) // Start reaps on failure; the pid is not exposed
		})
	}
}

func TestUnsupportedVersion(t *testing.T) {
	cmd := misbehave(t, "badversion")
	leaked := leakCheck(t)
	_, err := client.Start(context.Background(), cmd, client.Options{})
	if !errors.Is(err, client.ErrNoCommonVersion) || !strings.Contains(err.Error(), "1999-01-01") {
		t.Fatalf("Start = %v; want ErrNoCommonVersion naming 1999-01-01", err)
	}
	leaked(0)
}

// waitStderr waits until the server has written want to stderr.
func waitStderr(c *client.Conn, want string) {
	for !strings.Contains(c.Stderr(), want) {
		time.Sleep(time.Millisecond)
	}
}

func TestCallTimesOut(t *testing.T) {
	c, done := session(t, "normal", client.Options{Timeouts: client.Timeouts{Call: 100 * time.Millisecond}})
	defer done()
	_, err := c.Call(context.Background(), "hang", nil)
	ce := asCallError(t, err)
	if ce.Outcome != client.TimedOut || !ce.Outcome.Sent() || !ce.Outcome.Unknown() || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call(hang) = %v; want timed_out, sent, unknown", err)
	}
	if !strings.Contains(err.Error(), "effect is unknown") {
		t.Errorf("Error() = %q; want it to say the effect is unknown", err)
	}
	// The server is told, as best effort.
	waitStderr(c, fmt.Sprintf(`misbehave: cancelled {"reason":"timed_out","requestId":%d}`, ce.ID))
}

func TestCallerDeadlineAndConnectionSurvives(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Call(ctx, "hang", nil)
	if got := client.OutcomeOf(err); got != client.TimedOut {
		t.Fatalf("Call(hang) = %v; want timed_out", err)
	}
	res, err := c.Call(context.Background(), "echo", map[string]string{"msg": "still here"})
	if err != nil || res.Text() != "still here" {
		t.Fatalf("Call(echo) after a timeout = %v, %v", res, err)
	}
}

func TestCallCancelledByCaller(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitStderr(c, "misbehave: hanging on request")
		cancel()
	}()
	_, err := c.Call(ctx, "hang", nil)
	if got := client.OutcomeOf(err); got != client.Cancelled || !got.Unknown() {
		t.Fatalf("Call(hang) outcome = %v (%v); want cancelled", got, err)
	}
	waitStderr(c, `misbehave: cancelled {"reason":"cancelled"`)
	// A context already done sends nothing.
	_, err = c.Call(ctx, "echo", nil)
	if got := client.OutcomeOf(err); got != client.NotSent || got.Sent() {
		t.Fatalf("Call with a done context = %v (%v); want not_sent", got, err)
	}
}

func TestWrongIDTypeAndUnknownIDAreDropped(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	res, err := c.Call(context.Background(), "wrongid", nil)
	if err != nil || res.Text() != "right id" {
		t.Fatalf("Call(wrongid) = %v, %v; want the answer with the right id", res, err)
	}
	if s := c.Stats(); s.WrongIDType != 1 || s.UnknownID != 1 {
		t.Errorf("Stats = %+v; want one wrong-type id and one unknown id", s)
	}
}

// TestLateAnswerIsNotUnknown: a server answering a request after the client
// gave up on it is racing the cancellation, not inventing ids; the answer is
// dropped and counted as late.
func TestLateAnswerIsNotUnknown(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Call(ctx, "slow", map[string]any{"msg": "too late", "ms": 200})
	if got := client.OutcomeOf(err); got != client.TimedOut {
		t.Fatalf("Call(slow) = %v; want timed_out", err)
	}
	for s := c.Stats(); s.Late+s.UnknownID == 0; s = c.Stats() {
		time.Sleep(time.Millisecond)
	}
	res, err := c.Call(context.Background(), "wrongid", nil)
	if err != nil || res.Text() != "right id" {
		t.Fatalf("Call(wrongid) = %v, %v", res, err)
	}
	if s := c.Stats(); s.Late != 1 || s.UnknownID != 1 {
		t.Errorf("Stats = %+v; want one late answer and one unknown id", s)
	}
}

func TestOversizedFrame(t *testing.T) {
	for _, tt := range []struct {
		tool   string
		limits client.Limits
		keep   int
	}{
		{"big", client.Limits{FrameBytes: 1 << 20, OversizedKeep: 100}, 100},
		{"bigtail", client.Limits{FrameBytes: 1 << 20, OversizedKeep: 100}, 100},
		{"big", client.Limits{}, 64 << 10}, // defaults: 16 MiB frames, 64 KiB kept
	} {
		tool := tt.tool
		t.Run(fmt.Sprintf("%s/%d", tool, tt.keep), func(t *testing.T) {
			c, done := session(t, "normal", client.Options{Limits: tt.limits})
			defer done()
			before := heapInuse()
			_, err := c.Call(context.Background(), tool, nil)
			ce := asCallError(t, err)
			if ce.Outcome != client.Oversized || !ce.Outcome.Unknown() {
				t.Fatalf("Call(%s) = %v; want oversized", tool, err)
			}
			wantHead := map[string]string{"big": `{"jsonrpc":"2.0","id":`, "bigtail": `{"result":{"content":[{"type":"text","text":"AAAA`}[tool]
			if len(ce.Head) != tt.keep || !strings.HasPrefix(string(ce.Head), wantHead) {
				t.Errorf("Head = %.100q (%d bytes); want %d bytes starting %q", ce.Head, len(ce.Head), tt.keep, wantHead)
			}
			if ce.Size < 20<<20 {
				t.Errorf("Size = %d; want the whole 20 MiB frame counted", ce.Size)
			}
			if after := heapInuse(); after > before+4<<20 {
				t.Errorf("heap in use grew from %d to %d after discarding a 20 MiB frame", before, after)
			}
			res, err := c.Call(context.Background(), "echo", map[string]string{"msg": "next"})
			if err != nil || res.Text() != "next" {
				t.Fatalf("Call(echo) after an oversized frame = %v, %v", res, err)
			}
			if s := c.Stats(); s.Oversized != 1 {
				t.Errorf("Stats.Oversized = %d; want 1", s.Oversized)
			}
		})
	}
}

func TestStderrFloodStaysBounded(t *testing.T) {
	const flood = 1 << 30
	opts := client.Options{Limits: client.Limits{StderrBytes: 64 << 10, StderrLine: 1 << 10}}
	c, done := session(t, "normal", opts)
	defer done()
	before := heapInuse()
	// The server writes 1 GiB to stderr before it answers: the answer only
	// comes if the client keeps draining stderr.
	res, err := c.Call(context.Background(), "flood", map[string]int64{"bytes": flood})
	if err != nil || res.Text() != "flooded" {
		t.Fatalf("Call(flood) = %v, %v", res, err)
	}
	if after := heapInuse(); after > before+4<<20 {
		t.Errorf("heap in use grew from %d to %d during a 1 GiB stderr flood", before, after)
	}
	s := c.Stats()
	if s.StderrBytes != flood || s.StderrDropped < flood-64<<10 {
		t.Errorf("Stats = %+v; want %d stderr bytes seen, all but 64 KiB dropped", s, flood)
	}
	tail := c.Stderr()
	if len(tail) > 64<<10 || len(tail) < 60<<10 || !strings.HasPrefix(tail, strings.Repeat("E", 1<<10)+"\n") {
		t.Errorf("Stderr() is %d bytes starting %.20q; want at most 64 KiB of 1 KiB lines", len(tail), tail)
	}
}

func TestNonJSONLinesAreCountedAndDropped(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	res, err := c.Call(context.Background(), "garbage", nil)
	if err != nil || res.Text() != "after garbage" {
		t.Fatalf("Call(garbage) = %v, %v", res, err)
	}
	if s := c.Stats(); s.NonJSON != 2 || s.Malformed != 1 {
		t.Errorf("Stats = %+v; want 2 non-JSON lines and 1 non-message ([1,2,3])", s)
	}
}

func TestServerKilledMidCall(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	var wg sync.WaitGroup
	var hangErr error
	wg.Go(func() { _, hangErr = c.Call(context.Background(), "hang", nil) })
	waitStderr(c, "misbehave: hanging on request")
	_, err := c.Call(context.Background(), "die", nil)
	wg.Wait()
	for _, err := range []error{err, hangErr} {
		ce := asCallError(t, err)
		if ce.Outcome != client.ConnectionLost || !ce.Outcome.Sent() || !ce.Outcome.Unknown() {
			t.Fatalf("in-flight call = %v; want connection_lost, sent", err)
		}
		if l := ce.Lost; l == nil || !l.Exited || l.ExitStatus != "signal: killed" || !strings.Contains(l.Stderr, "about to be killed") {
			t.Errorf("Lost = %+v; want killed with the stderr tail", l)
		}
	}
	<-c.Done()
	_, err = c.Call(context.Background(), "echo", nil)
	if ce := asCallError(t, err); ce.Outcome != client.NotSent || ce.Lost == nil {
		t.Fatalf("Call after the connection was lost = %v; want not_sent with Lost", err)
	}
}

func TestServerRequestsAndNotifications(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	res, err := c.Call(context.Background(), "chatty", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`roots/list 0 -> {"id":0,"result":{"roots":[]}}`,
		`ping "p-1" -> {"id":"p-1","result":{}}`,
		`sampling/createMessage 7 -> {"error":{"code":-32601,"message":"method not supported by this client: sampling/createMessage"},"id":7}`,
		`elicitation/create "e" -> {"error":{"code":-32601,"message":"method not supported by this client: elicitation/create"},"id":"e"}`,
	}, "\n")
	if res.Text() != want {
		t.Errorf("the server saw these answers:\n%s\nwant:\n%s", res.Text(), want)
	}
	if s := c.Stats(); s.Notifications != 2 || s.UnknownNotifications != 1 || s.ServerRequests != 4 {
		t.Errorf("Stats = %+v; want 2 notifications (1 unknown) and 4 server requests", s)
	}
}

func TestMessagesBeforeInitializeResult(t *testing.T) {
	c, done := session(t, "chatty-init", client.Options{})
	defer done()
	if s := c.Stats(); s.ToolListChanged != 1 || s.UnknownNotifications != 1 {
		t.Errorf("Stats = %+v; want the two early notifications counted", s)
	}
	if _, err := c.Call(context.Background(), "echo", nil); err != nil {
		t.Fatal(err)
	}
}

func TestToolListChanges(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	ctx := context.Background()
	tools, err := c.Tools(ctx)
	if err != nil || strings.Contains(toolNames(tools), "added") {
		t.Fatalf("Tools() = %s, %v", toolNames(tools), err)
	}
	if _, err := c.Call(ctx, "change", nil); err != nil {
		t.Fatal(err)
	}
	if n := c.Stats().ToolListChanged; n != 1 {
		t.Errorf("ToolListChanged = %d; want 1", n)
	}
	tools, err = c.Tools(ctx)
	if err != nil || len(tools) != 13 || tools[12].Name != "added" {
		t.Fatalf("Tools() after the change = %s, %v; want 'added' last", toolNames(tools), err)
	}
}

func TestContentTypes(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	res, err := c.Call(context.Background(), "mixed", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || string(res.StructuredContent) != `{"answer":42}` || res.Text() != "caption" || res.Unsupported() != 4 {
		t.Errorf("Result = %+v; want isError, structuredContent, text 'caption', 4 unsupported blocks", res)
	}
	var types []string
	for _, b := range res.Content {
		types = append(types, fmt.Sprintf("%s:%v", b.Type, b.Unsupported))
	}
	if got := strings.Join(types, " "); got != "text:false image:true resource_link:true hologram:true text:true" {
		t.Errorf("content = %s", got)
	}
	if !json.Valid(res.Content[1].Raw) || !strings.Contains(string(res.Content[1].Raw), "image/png") {
		t.Errorf("image block raw = %s; want it kept as sent", res.Content[1].Raw)
	}
	if res.Size() != len(res.Raw) || res.Size() == 0 {
		t.Errorf("Size() = %d, raw %d bytes", res.Size(), len(res.Raw))
	}
}

func TestListLimits(t *testing.T) {
	t.Run("pages", func(t *testing.T) {
		c, done := session(t, "endless-pages", client.Options{Limits: client.Limits{ListPages: 3}})
		defer done()
		tools, err := c.Tools(context.Background())
		if !errors.Is(err, client.ErrLimit) || len(tools) != 36 {
			t.Fatalf("Tools() = %d tools, %v; want 36 and ErrLimit", len(tools), err)
		}
	})
	t.Run("tools", func(t *testing.T) {
		c, done := session(t, "normal", client.Options{Limits: client.Limits{Tools: 5}})
		defer done()
		tools, err := c.Tools(context.Background())
		if !errors.Is(err, client.ErrLimit) || len(tools) != 5 {
			t.Fatalf("Tools() = %d tools, %v; want 5 and ErrLimit", len(tools), err)
		}
	})
}

func TestConcurrentCallsAnsweredOutOfOrder(t *testing.T) {
	c, done := session(t, "normal", client.Options{})
	defer done()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			msg := fmt.Sprint("call ", i)
			res, err := c.Call(context.Background(), "slow", map[string]any{"msg": msg, "ms": 80 - 10*i})
			if err == nil && res.Text() != msg {
				err = fmt.Errorf("got %q", res.Text())
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func TestCloseEscalatesToSIGKILL(t *testing.T) {
	opts := client.Options{Timeouts: client.Timeouts{CloseGrace: 50 * time.Millisecond, TermGrace: 50 * time.Millisecond}}
	cmd := misbehave(t, "stubborn")
	leaked := leakCheck(t)
	c, err := client.Start(context.Background(), cmd, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "SIGKILL") {
		t.Errorf("Close() = %v; want it to report SIGKILL", err)
	}
	leaked(c.PID())
}

func TestEnvironmentIsAnAllowlist(t *testing.T) {
	t.Setenv("CLIENT_TEST_SECRET", "leak")
	t.Setenv("CLIENT_TEST_ALLOWED", "shared")
	cmd := misbehave(t, "normal")
	cmd.Path = "/bin/sh"
	cmd.Args = []string{"-c", `env >&2; exec "$0" "$@"`, misbehave(t, "normal").Path, "-mode", "normal"}
	cmd.Env = []string{"EXPLICIT=1"}
	cmd.Inherit = []string{"CLIENT_TEST_ALLOWED", "CLIENT_TEST_UNSET"}
	leaked := leakCheck(t)
	c, err := client.Start(context.Background(), cmd, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	leaked(c.PID())
	env := c.Stderr()
	for _, want := range []string{"EXPLICIT=1\n", "CLIENT_TEST_ALLOWED=shared\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("server environment lacks %q:\n%s", want, env)
		}
	}
	for _, bad := range []string{"CLIENT_TEST_SECRET", "CLIENT_TEST_UNSET", "HOME="} {
		if strings.Contains(env, bad) {
			t.Errorf("server environment has %q:\n%s", bad, env)
		}
	}
}
