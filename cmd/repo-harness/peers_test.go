package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/jsonl"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// A third-party server (@modelcontextprotocol/server-filesystem): the model
// sees only the allowlisted tools, the harness checks their paths itself,
// an annotation makes a misconfigured tool stricter (and the mismatch is
// recorded), and non-text content reaches the model as a note, not as
// guessed text.
func TestFilesystemServer(t *testing.T) {
	node := peers.Node(t)
	script := filepath.Join(peers.Dir(t), "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	ws, state := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte(readme), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=secret\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "pixel.png"), []byte("\x89PNG\r\n\x1a\nnot really an image"), 0o644))
	config := filepath.Join(state, "harness.yaml")
	must(t, os.WriteFile(config, fmt.Appendf(nil, `state_dir: %[1]s
servers:
  fs:
    command: [%[2]s, %[3]s, %[4]s]
    workspace: %[4]s
    approve: first_use
    tools:
      list_directory: {effect: read_only, paths: [path]}
      read_text_file: {effect: read_only, paths: [path]}
      read_media_file: {effect: read_only, paths: [path]}
      write_file: {effect: read_only, paths: [path]}    # wrong on purpose: the annotations say destructive
model:
  kind: scripted
  steps:
    - {tool: list_directory, args: {path: %[4]s}}
    - {tool: read_text_file, args: {path: %[4]s/README.md}}
    - {tool: read_text_file, args: {path: %[4]s/.env}}
    - {tool: read_text_file, args: {path: /etc/hostname}}
    - {tool: read_text_file, args: {path: %[4]s/../../etc/hostname}}
    - {tool: read_media_file, args: {path: %[4]s/pixel.png}}
    - {tool: move_file, args: {source: %[4]s/README.md, destination: %[4]s/GONE.md}}
    - {tool: write_file, args: {path: %[4]s/new.txt, content: hello}}
    - {answer: report}
`, state, node, script, ws), 0o644))

	s := startSession(t, config)
	var table []string
	for _, tl := range s.hello.Tools {
		table = append(table, tl.Alias+":"+tl.Effect)
		if tl.Tool == "write_file" && !strings.Contains(tl.Mismatch, "annotations say destructive, configuration says read_only") {
			t.Errorf("write_file mismatch not recorded: %+v", tl)
		}
	}
	want := "fs_list_directory:read_only fs_read_media_file:read_only fs_read_text_file:read_only fs_write_file:destructive"
	if got := strings.Join(table, " "); got != want {
		t.Errorf("tool table %s\nwant       %s", got, want)
	}
	run, st := s.submitWait("look around")
	if st.Status.State != eventlog.WaitingForApproval {
		t.Fatalf("run %s (%s); calls %s", st.Status.State, st.Status.Reason, callStates(st))
	}
	s.ok(jsonl.Command{Cmd: "deny", Run: run, Call: "c8", By: "alice", Reason: "no writes today"})
	st = s.ok(jsonl.Command{Cmd: "wait", Run: run})
	want = "fs_list_directory:succeeded fs_read_text_file:succeeded fs_read_text_file:permission_denied fs_read_text_file:permission_denied fs_read_text_file:permission_denied fs_read_media_file:succeeded move_file:permission_denied fs_write_file:denied"
	if got := callStates(st); got != want {
		t.Errorf("calls %s\nwant  %s", got, want)
	}
	if st.Status.State != eventlog.Completed {
		t.Fatalf("run %s (%s)", st.Status.State, st.Status.Reason)
	}
	for _, c := range st.Status.Calls[2:5] {
		if c.Attempts != 0 {
			t.Errorf("call %s (%s) reached the server", c.ID, c.Arguments)
		}
	}
	var media eventlog.ResultData
	for _, ev := range logEvents(t, state, run) {
		if ev.Type == eventlog.ToolResult && ev.Call == "c6" {
			ev.Decode(&media)
		}
	}
	if !strings.Contains(media.Content, "content of type image is not supported yet") || !strings.Contains(media.Content, st.Status.Calls[5].Artifact) {
		t.Errorf("the model got %q for an image", media.Content)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("the denied write happened")
	}
	if _, err := os.Stat(filepath.Join(ws, "README.md")); err != nil {
		t.Error("the refused move happened")
	}
	s.close()
}
