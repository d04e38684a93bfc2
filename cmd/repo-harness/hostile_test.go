package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/jsonl"
	"github.com/repo-mcp/repo-mcp/harness/visible"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/hostilepath"
)

// These tests attack the harness through its binary: a hostile repository
// (committed symbolic links into .git), a hostile model (escape sequences in
// arguments, repeated call ids, paths that leave the workspace), hostile
// servers (escape sequences in results, a server that dies or answers an
// absurd schema, a redirect to another port), and a second harness on the
// same state directory.

// yamlString quotes s for YAML: Go's ASCII quoting is a YAML double-quoted
// scalar, escapes included.
func yamlString(s string) string { return strconv.QuoteToASCII(s) }

// writeConfig writes a harness configuration into state and returns its path.
func writeConfig(t *testing.T, state, body string) string {
	t.Helper()
	config := filepath.Join(state, "harness.yaml")
	must(t, os.WriteFile(config, []byte("state_dir: "+state+"\n"+body), 0o644))
	return config
}

// filesServer configures filesserver over ws as the server "files", with
// the allowlist tools (one tool a line) and more flags.
func filesServer(t *testing.T, ws, tools string, flags ...string) string {
	t.Helper()
	command := strings.Join(append([]string{filesserverBin(t), "-root", ws}, flags...), ", ")
	return fmt.Sprintf("  files:\n    command: [%s]\n    workspace: %s\n    approve: first_use\n    tools:\n%s\n", command, ws, indent4(tools))
}

// repoWithLinks is a git repository whose commit holds links into its own
// metadata: meta -> .git, hooks -> .git/hooks, and inside -> docs (a link
// that stays in the working tree).
func repoWithLinks(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitfixture.Git(t, dir, "init", "-q")
	must(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("a\n"), 0o644))
	must(t, os.Symlink(".git", filepath.Join(dir, "meta")))
	must(t, os.Symlink(".git/hooks", filepath.Join(dir, "hooks")))
	must(t, os.Symlink("docs", filepath.Join(dir, "inside")))
	must(t, os.WriteFile(filepath.Join(dir, ".git", "hooks", "post-checkout"), []byte("#!/bin/sh\necho hook\n"), 0o755))
	gitfixture.Git(t, dir, "add", "README.md", "docs", "meta", "hooks", "inside")
	gitfixture.Git(t, dir, "commit", "-qm", "links into .git")
	return dir
}

// Writes to meta/config and hooks/post-checkout, through the harness's own
// write_note and through a server's, never reach .git: the harness refuses
// them before a person is asked. A write through a link that stays inside
// the working tree is refused by the local source even once approved.
func TestHostileRepositoryLinks(t *testing.T) {
	ws := repoWithLinks(t)
	gitConfig, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))
	state := t.TempDir()
	config := writeConfig(t, state, fmt.Sprintf(`allow_hidden: true
local:
  workspace: %s
  tools:
    write_note: {effect: write}
servers:
%smodel:
  kind: scripted
  steps:
    - {tool: write_note, args: {path: meta/config, text: "[core]\n\tfsmonitor = touch PWNED\n"}}
    - {tool: write_note, args: {path: hooks/post-checkout, text: "#!/bin/sh\ntouch PWNED\n"}}
    - {tool: files_write_note, args: {path: meta/config, text: "[core]\n\tfsmonitor = touch PWNED\n"}}
    - {tool: files_write_note, args: {path: hooks/post-checkout, text: "#!/bin/sh\ntouch PWNED\n"}}
    - {tool: write_note, args: {path: inside/note.md, text: "through a link"}}
    - {answer: report}
`, ws, filesServer(t, ws, "write_note: {effect: write, paths: [path], preview: text}")))
	s := startSession(t, config)
	run, st := s.submitWait("write into the repository metadata")
	want := "write_note:permission_denied write_note:permission_denied files_write_note:permission_denied files_write_note:permission_denied write_note:waiting_for_approval"
	if got := callStates(st); got != want {
		t.Fatalf("calls %s\nwant  %s", got, want)
	}
	c := st.Status.Calls[4]
	s.ok(jsonl.Command{Cmd: "approve", Run: run, Call: c.ID, Digest: c.Digest, Definition: c.Definition, By: "alice"})
	st = s.ok(jsonl.Command{Cmd: "wait", Run: run})
	if got := st.Status.Calls[4]; got.State != eventlog.Failed || !strings.Contains(got.Reason+st.Status.Answer, "never written through a symbolic link") {
		t.Errorf("approved write through inside/: %s (%s); answer %q", got.State, got.Reason, st.Status.Answer)
	}
	s.close()
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); !bytes.Equal(b, gitConfig) {
		t.Errorf(".git/config changed:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "hooks", "post-checkout")); string(b) != "#!/bin/sh\necho hook\n" {
		t.Errorf("the hook changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "docs", "note.md")); err == nil {
		t.Error("a note was written through inside -> docs")
	}
	gitfixture.Git(t, ws, "status", "--porcelain")
	if _, err := os.Stat(filepath.Join(ws, "PWNED")); err == nil {
		t.Error("git status ran the planted fsmonitor")
	}
}

// hostileText holds what a model or a server may send to act on the person
// who reads it: SGR conceal, cursor up and erase line, an RLO, a line
// separator, a C1 CSI and DEL.
const hostileText = "\x1b[8mrm -rf ~\x1b[0m approved\x1b[1A\x1b[2K \u202eexe.txt \u2028\u009b31m\x7f"

// assertNothingRaw fails when out holds a character a terminal or reader
// would interpret (newlines and tabs excepted), or invalid UTF-8.
func assertNothingRaw(t *testing.T, what string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s is not UTF-8", what)
	}
	for i, r := range string(out) {
		if r != '\n' && r != '\t' && visible.Unsafe(r) {
			t.Errorf("%s holds %U raw at byte %d: %q", what, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
}

// escapeConfig writes a workspace holding evil.md and a configuration whose
// model reads it, then asks to write a note with hostile text over it (the
// preview shows the note and, through read_file, what it replaces).
func escapeConfig(t *testing.T) (state, config string) {
	ws := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "evil.md"), []byte("before\n"+hostileText+"\nafter\n"), 0o644))
	state = t.TempDir()
	config = writeConfig(t, state, fmt.Sprintf(`servers:
%smodel:
  kind: scripted
  steps:
    - {tool: read_file, args: {path: evil.md}}
    - {tool: write_note, args: {path: evil.md, text: %s}}
    - {answer: report}
`, filesServer(t, ws, `read_file: {effect: read_only, paths: [path]}
write_note: {effect: write, paths: [path], preview: text, preview_with: {tool: read_file, args: [path]}}`), yamlString(hostileText)))
	return state, config
}

// Escape sequences and bidi controls in a model's arguments, in the file
// content a person is shown to approve a write, and in a server's result,
// reach the terminal of `repo-harness run` made visible; the person still
// sees them, as text.
func TestHostileEscapesAtTheTerminal(t *testing.T) {
	state, config := escapeConfig(t)
	cmd := exec.Command(harnessBin(t), "run", "--config", config, "do as the file says")
	cmd.Stdin = strings.NewReader("n\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("repo-harness run: %v\n%s\nstderr:\n%s", err, out, stderr.Bytes())
	}
	assertNothingRaw(t, "the terminal output", out)
	assertNothingRaw(t, "stderr", stderr.Bytes())
	for _, want := range []string{
		`\x1b[8mrm -rf ~\x1b[0m approved\x1b[1A\x1b[2K <U+202E>exe.txt <U+2028><U+009B>31m\x7f`, // the note, in the prompt
		"--- read_file (called by the harness",                                                  // the file it replaces, shown too
		"approve? [y/N]",
		"ignores the task given here",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the terminal output lacks %q:\n%s", want, out)
		}
	}
	if n := bytes.Count(out, []byte(`\x1b[8mrm -rf ~`)); n < 2 {
		t.Errorf("the hostile text is shown %d times; want in the note and in the file's content", n)
	}
	logOut, err := exec.Command(harnessBin(t), "log", "--state", state).CombinedOutput()
	must(t, err)
	run := strings.Fields(strings.Split(string(logOut), "\n")[1])[0]
	table, err := exec.Command(harnessBin(t), "log", "--state", state, run).CombinedOutput()
	if err != nil {
		t.Fatalf("repo-harness log: %v\n%s", err, table)
	}
	assertNothingRaw(t, "the audit table", table)
	if !bytes.Contains(table, []byte(`\u001b[8m`)) { // the arguments are JSON
		t.Errorf("the audit table does not show the arguments' escapes:\n%s", table)
	}
}

// The same run over the line protocol: every line is one JSON object with
// nothing raw in it, the tool result the model read shows the escapes as
// text, and so do the preview and the event log on disk.
func TestHostileEscapesInTheProtocol(t *testing.T) {
	state, config := escapeConfig(t)
	s := startSession(t, config)
	run, st := s.submitWait("do as the file says")
	if st.Status.State != eventlog.WaitingForApproval {
		t.Fatalf("run %s (%s)", st.Status.State, st.Status.Reason)
	}
	preview := st.Status.Calls[1].Preview
	if !strings.Contains(preview, `\x1b[8mrm -rf ~`) || strings.Contains(preview, "\x1b") || strings.Contains(preview, "\u202e") {
		t.Errorf("the preview a person approves: %q", preview)
	}
	s.ok(jsonl.Command{Cmd: "deny", Run: run, Call: st.Status.Calls[1].ID, By: "alice", Reason: "no"})
	st = s.ok(jsonl.Command{Cmd: "wait", Run: run})
	if st.Status.State != eventlog.Completed {
		t.Fatalf("run %s (%s)", st.Status.State, st.Status.Reason)
	}
	s.close()
	for i, line := range s.raw {
		assertNothingRaw(t, fmt.Sprintf("output line %d", i+1), line)
		if !json.Valid(line) {
			t.Errorf("output line %d is not one JSON object: %q", i+1, line)
		}
	}
	var result eventlog.ResultData
	for _, ev := range logEvents(t, state, run) {
		if ev.Type == eventlog.ToolResult && ev.Call == "c1" {
			must(t, ev.Decode(&result))
		}
	}
	if !strings.Contains(result.Content, `\x1b[1A\x1b[2K <U+202E>exe.txt <U+2028><U+009B>31m\x7f`) {
		t.Errorf("the model read %q", result.Content)
	}
	assertNothingRaw(t, "the tool result", []byte(result.Content))
	raw, err := os.ReadFile(filepath.Join(state, "runs", run, "events.jsonl"))
	must(t, err)
	assertNothingRaw(t, "events.jsonl", raw)
}

// fakeAnthropic is a model API that answers with the replies given, in
// turn, and keeps the requests it received.
type fakeAnthropic struct {
	mu       sync.Mutex
	replies  []string
	requests [][]byte
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, body)
	n := len(f.requests) - 1
	if n >= len(f.replies) {
		n = len(f.replies) - 1
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, f.replies[n])
}

// A model reply whose tool calls share one id, or have none, does not wedge
// the run: the harness names the calls harness_<reply>_<n>, the log says
// so, each call gets its result, and the model is answered under the new
// names.
func TestHostileModelCallIDs(t *testing.T) {
	fake := &fakeAnthropic{replies: []string{
		`{"stop_reason":"tool_use","content":[` +
			`{"type":"tool_use","id":"dup","name":"files_read_file","input":{"path":"README.md"}},` +
			`{"type":"tool_use","id":"dup","name":"files_list_files","input":{}},` +
			`{"type":"tool_use","name":"files_read_file","input":{"path":"main.go"}}]}`,
		`{"stop_reason":"end_turn","content":[{"type":"text","text":"Read them all."}]}`,
	}}
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	f := newFixture(t, readTools, "")
	config := writeConfig(t, f.state, fmt.Sprintf(`servers:
%smodel:
  kind: anthropic
  name: fake
  base_url: %s
`, filesServer(t, f.ws, readTools), api.URL))
	s := startSession(t, config)
	run, st := s.submitWait("read everything")
	s.close()
	if st.Status.State != eventlog.Completed || callStates(st) != "files_read_file:succeeded files_list_files:succeeded files_read_file:succeeded" {
		t.Fatalf("run %s (%s); calls %s", st.Status.State, st.Status.Reason, callStates(st))
	}
	var reply eventlog.ReplyData
	for _, ev := range logEvents(t, f.state, run) {
		if ev.Type == eventlog.ModelReply && reply.Calls == nil {
			must(t, ev.Decode(&reply))
		}
	}
	wantRenamed := []eventlog.RenamedCall{{Index: 1, From: "dup", To: "harness_1_2"}, {Index: 2, From: "", To: "harness_1_3"}}
	if fmt.Sprint(reply.Renamed) != fmt.Sprint(wantRenamed) {
		t.Errorf("renamed %+v; want %+v", reply.Renamed, wantRenamed)
	}
	fake.mu.Lock()
	second := string(fake.requests[1])
	fake.mu.Unlock()
	for _, id := range []string{"dup", "harness_1_2", "harness_1_3"} {
		if strings.Count(second, `"tool_use_id":"`+id+`"`) != 1 || strings.Count(second, `"id":"`+id+`"`) != 1 {
			t.Errorf("the model was not answered once under %q:\n%s", id, second)
		}
	}
}

// A second harness on a state directory another holds is refused, names
// the holder, and touches nothing; once the first ends, it starts.
func TestTwoHarnessesOneStateDirectory(t *testing.T) {
	f := newFixture(t, readTools, "")
	first := startSession(t, f.config)
	host, _ := os.Hostname()
	holder := fmt.Sprintf("pid %d on host %s since ", first.cmd.Process.Pid, host)
	for _, args := range [][]string{
		{"jsonl", "--config", f.config},
		{"run", "--config", f.config, "list the files"},
		{"tools", "--config", f.config},
	} {
		cmd := exec.Command(harnessBin(t), args...)
		cmd.Stdin = strings.NewReader(`{"cmd":"submit","task":"list the files"}` + "\n")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%s: %v; want exit status 2\n%s", args[0], err, out)
		}
		if !bytes.Contains(out, []byte("is in use by "+holder)) {
			t.Errorf("%s does not name the holder (%s):\n%s", args[0], holder, out)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(f.state, "runs")); len(entries) != 0 {
		t.Errorf("the refused harnesses left %d runs", len(entries))
	}
	run, st := first.submitWait("list the files")
	first.close()
	if st.Status.State != eventlog.Completed {
		t.Fatalf("the first harness's run: %s", st.Status.State)
	}
	logEvents(t, f.state, run) // numbered 1, 2, ... without a gap or a repeat
	second := startSession(t, f.config)
	second.close()
}

// A server that dies during tools/list and one that answers a schema
// nested 9,990 JSON levels deep are left out and reported; the other
// server serves. (An answer deeper than encoding/json reads is no answer
// to the client: that server is left out when tools/list times out.)
func TestHostileServersLeftOut(t *testing.T) {
	f := newFixture(t, readTools, "")
	mis := build(t, "github.com/repo-mcp/repo-mcp/internal/misbehave")
	config := writeConfig(t, f.state, fmt.Sprintf(`servers:
%s  dies:
    command: [%s, -mode, list-dies]
    approve: first_use
    tools:
      echo: {effect: read_only}
  deep:
    command: [%s, -mode, deep-schema]
    approve: first_use
    tools:
      echo: {effect: read_only}
model:
  kind: scripted
`, filesServer(t, f.ws, readTools), mis, mis))
	s := startSession(t, config)
	problems := strings.Join(s.hello.Problems, "\n")
	for _, want := range []string{"mcp.deep: left out: ", "nested", "mcp.dies: left out: ", "connection_lost"} {
		if !strings.Contains(problems, want) {
			t.Errorf("hello problems lack %q:\n%s", want, problems)
		}
	}
	run := seedTask(t, s, f.state, "files", "")
	s.close()
	if !strings.Contains(s.stderr.String(), "source left out") || !strings.Contains(s.stderr.String(), "mcp.dies") || !strings.Contains(s.stderr.String(), "mcp.deep") {
		t.Errorf("stderr does not report the servers left out:\n%s", s.stderr)
	}
	var created eventlog.RunData
	must(t, logEvents(t, f.state, run)[0].Decode(&created))
	if len(created.Unavailable) != 2 || created.Unavailable[0].Source != "mcp.deep" || created.Unavailable[1].Source != "mcp.dies" {
		t.Errorf("run_created unavailable %+v", created.Unavailable)
	}
}

// An MCP endpoint that redirects to another port never receives the
// configured Authorization header there: the server is left out, named
// with the redirect, and the harness serves the rest.
func TestRedirectToAnotherPortKeepsToken(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string
	)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(elsewhere.Close)
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(endpoint.Close)
	t.Setenv("REDIRECT_TEST_TOKEN", "secret-token-4711")
	f := newFixture(t, readTools, "")
	config := writeConfig(t, f.state, fmt.Sprintf(`servers:
%s  moved:
    url: %s/mcp
    headers:
      Authorization: "Bearer ${REDIRECT_TEST_TOKEN}"
    approve: first_use
    tools:
      echo: {effect: read_only}
model:
  kind: scripted
`, filesServer(t, f.ws, readTools), endpoint.URL))
	s := startSession(t, config)
	problems := strings.Join(s.hello.Problems, "\n")
	if !strings.Contains(problems, "mcp.moved: left out: ") || !strings.Contains(problems, "307") || !strings.Contains(problems, elsewhere.URL) {
		t.Errorf("hello problems:\n%s", problems)
	}
	seedTask(t, s, f.state, "files", "")
	s.close()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 0 {
		t.Errorf("the other port received %d requests, Authorization %q", len(seen), seen)
	}
	if strings.Contains(problems+s.stderr.String(), "secret-token-4711") {
		t.Error("the token appears in the harness's output")
	}
}

// Every path of the attack list that workspace.CleanPath refuses, and the
// ones only a server the harness does not control makes dangerous (~/x,
// ..), is refused by the harness before the server hears of it.
func TestHostilePathsNeverSent(t *testing.T) {
	var paths []string
	for _, p := range append(hostilepath.Paths(), "~/x", "~root/.ssh/id_rsa", "%2e%2e/x", "docs/../README.md", ".env") {
		if utf8.ValidString(p) { // a model's JSON arguments cannot hold anything else
			paths = append(paths, p)
		}
	}
	var steps strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&steps, "    - {tool: read_file, args: {path: %s}}\n", yamlString(p))
	}
	steps.WriteString("    - {answer: report}\n")
	f := newFixture(t, readTools, "")
	config := writeConfig(t, f.state, fmt.Sprintf(`max_turns: %d
servers:
%smodel:
  kind: scripted
  steps:
%s`, len(paths)+2, filesServer(t, f.ws, "read_file: {effect: read_only, paths: [path]}", "-started", f.started), steps.String()))
	s := startSession(t, config)
	_, st := s.submitWait("read outside")
	s.close()
	if st.Status.State != eventlog.Completed || len(st.Status.Calls) != len(paths) {
		t.Fatalf("run %s (%s) with %d calls; want %d", st.Status.State, st.Status.Reason, len(st.Status.Calls), len(paths))
	}
	for i, c := range st.Status.Calls {
		if c.Attempts != 0 || (c.State != eventlog.PermissionDenied && c.State != eventlog.Failed) {
			t.Errorf("path %s: call %s %s after %d attempts (%s)", strconv.QuoteToASCII(paths[i][:min(len(paths[i]), 40)]), c.ID, c.State, c.Attempts, c.Reason)
		}
	}
}

// The newcomer's path: the demo outside a git repository says so first,
// and what to do; with --local in a directory without a README it refuses
// rather than summarize a listing, and a README it could not read fails
// the demo however the run ended.
func TestDemoOutsideRepository(t *testing.T) {
	bin := repoMCP(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a repository\n"), 0o644))
	demo := func(args ...string) string {
		cmd := exec.Command(harnessBin(t), append([]string{"demo", "--state", t.TempDir(), "--workspace", dir}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("demo %v in a directory that is not a repository succeeded:\n%s", args, out)
		}
		return string(out)
	}
	out := demo()
	if !strings.HasPrefix(out, "repo-harness: "+dir+" is not a git repository.") || !strings.Contains(out, "--local") || strings.Contains(out, "connection_lost") {
		t.Errorf("demo outside a repository:\n%s", out)
	}
	out = demo("--local")
	if !strings.Contains(out, "is not a git repository: the demo reads it as plain files") || !strings.Contains(out, "has no README.md") || strings.Contains(out, "completed") {
		t.Errorf("demo --local without a README:\n%s", out)
	}
	// A README that cannot be read: the run completes, but the summary
	// would be of the listing, and the demo says so.
	must(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("binary\x00"), 0o644))
	out = demo("--local")
	if !strings.Contains(out, "the demo's task was not carried out: call c2 (local.read_file") || !strings.Contains(out, "not of README.md") {
		t.Errorf("demo --local with an unreadable README:\n%s", out)
	}
}
