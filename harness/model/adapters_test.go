package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the request fixtures from what the adapters send")

var fixtureTools = []ToolSpec{
	{Name: "list_files", Description: "Lists files.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`)},
	{Name: "read_file", Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
}

// replay serves the fixture's responses in order and checks each request
// against the fixture's request-N.
type replay struct {
	t        *testing.T
	path     string
	archive  *txtar.Archive
	mu       sync.Mutex
	turn     int
	bodies   [][]byte
	wantPath string
	header   http.Header
}

func newReplay(t *testing.T, name string) *replay {
	path := filepath.Join("testdata", name+".txtar")
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &replay{t: t, path: path, archive: a}
}

func (r *replay) file(name string) []byte {
	for _, f := range r.archive.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turn++
	if req.URL.Path != r.wantPath {
		r.t.Errorf("request to %s; want %s", req.URL.Path, r.wantPath)
	}
	for k := range r.header {
		if got := req.Header.Get(k); got != r.header.Get(k) {
			r.t.Errorf("header %s = %q; want %q", k, got, r.header.Get(k))
		}
	}
	body, _ := io.ReadAll(req.Body)
	r.bodies = append(r.bodies, body)
	want := r.file(fmt.Sprintf("request-%d.json", r.turn))
	if !*update && !jsonEqual(body, want) {
		r.t.Errorf("request %d differs from the fixture:\n got %s\nwant %s", r.turn, body, want)
	}
	resp := r.file(fmt.Sprintf("response-%d.json", r.turn))
	if resp == nil {
		http.Error(w, "no more responses", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

func (r *replay) save() {
	if !*update {
		return
	}
	var files []txtar.File
	for i, b := range r.bodies {
		var pretty bytes.Buffer
		json.Indent(&pretty, b, "", "  ")
		pretty.WriteByte('\n')
		files = append(files, txtar.File{Name: fmt.Sprintf("request-%d.json", i+1), Data: pretty.Bytes()})
	}
	for _, f := range r.archive.Files {
		if strings.HasPrefix(f.Name, "response-") {
			files = append(files, f)
		}
	}
	r.archive.Files = files
	if err := os.WriteFile(r.path, txtar.Format(r.archive), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// converse drives a model the way the harness does: every tool call gets
// exactly one result in the next message.
func converse(t *testing.T, m Model) (string, int) {
	msgs := []Message{{Role: User, Text: "List the files in the workspace, read README.md, then summarize it in three sentences."}}
	for turn := 1; turn <= 5; turn++ {
		reply, err := m.Next(context.Background(), Request{System: "You are a careful assistant.", Messages: msgs, Tools: fixtureTools})
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if len(reply.Calls) == 0 {
			return reply.Text, turn
		}
		msgs = append(msgs, Message{Role: Assistant, Text: reply.Text, Calls: reply.Calls})
		var results []ToolResult
		for _, c := range reply.Calls {
			results = append(results, ToolResult{CallID: c.ID, Content: fmt.Sprintf("result of %s %s", c.Name, c.Arguments), IsError: strings.Contains(string(c.Arguments), "go.mod")})
		}
		msgs = append(msgs, Message{Role: Tool, Results: results})
	}
	t.Fatal("no final answer after 5 turns")
	return "", 0
}

func TestFixtures(t *testing.T) {
	tests := []struct {
		name  string
		model func(url string) Model
		pairs func(t *testing.T, body []byte)
		path  string
		hdr   http.Header
	}{
		{"anthropic", func(url string) Model {
			return NewAnthropic(HTTPConfig{BaseURL: url, APIKey: "test-key", Model: "claude-test", MaxTokens: 1024})
		}, anthropicPairs, "/v1/messages", http.Header{"X-Api-Key": {"test-key"}, "Anthropic-Version": {"2023-06-01"}}},
		{"openai", func(url string) Model {
			return NewOpenAI(HTTPConfig{BaseURL: url + "/v1", APIKey: "test-key", Model: "local-test", MaxTokens: 1024})
		}, openaiPairs, "/v1/chat/completions", http.Header{"Authorization": {"Bearer test-key"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReplay(t, tt.name)
			r.wantPath, r.header = tt.path, tt.hdr
			srv := httptest.NewServer(r)
			defer srv.Close()
			answer, turns := converse(t, tt.model(srv.URL))
			r.save()
			if turns != 3 || !strings.HasPrefix(answer, "repo-mcp serves Git repositories") {
				t.Errorf("answer after %d turns: %q", turns, answer)
			}
			for _, body := range r.bodies {
				tt.pairs(t, body)
			}
		})
	}
}

// anthropicPairs checks that every tool_use has exactly one tool_result in
// the next message.
func anthropicPairs(t *testing.T, body []byte) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for i, m := range req.Messages {
		for _, b := range m.Content {
			if b.Type != "tool_use" {
				continue
			}
			n := 0
			if i+1 < len(req.Messages) {
				for _, r := range req.Messages[i+1].Content {
					if r.Type == "tool_result" && r.ToolUseID == b.ID {
						n++
					}
				}
			}
			if n != 1 {
				t.Errorf("tool_use %s has %d results in the next message", b.ID, n)
			}
		}
	}
}

func openaiPairs(t *testing.T, body []byte) {
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for i, m := range req.Messages {
		for _, c := range m.ToolCalls {
			n := 0
			for j := i + 1; j < len(req.Messages) && req.Messages[j].Role == "tool"; j++ {
				if req.Messages[j].ToolCallID == c.ID {
					n++
				}
			}
			if n != 1 {
				t.Errorf("tool call %s has %d results after it", c.ID, n)
			}
		}
	}
}

func TestAdaptersRefuseUnpairedCalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a conversation with an unanswered tool call was sent")
	}))
	defer srv.Close()
	msgs := []Message{
		{Role: User, Text: "task"},
		{Role: Assistant, Calls: []ToolCall{{ID: "a", Name: "x", Arguments: json.RawMessage(`{}`)}, {ID: "b", Name: "x", Arguments: json.RawMessage(`{}`)}}},
		{Role: Tool, Results: []ToolResult{{CallID: "a", Content: "ok"}}},
	}
	for _, m := range []Model{NewAnthropic(HTTPConfig{BaseURL: srv.URL}), NewOpenAI(HTTPConfig{BaseURL: srv.URL}), NewScripted(DemoPlan(nil))} {
		if _, err := m.Next(context.Background(), Request{Messages: msgs}); err == nil {
			t.Errorf("%s accepted a tool call without result", m.Name())
		}
	}
	msgs[2].Results = append(msgs[2].Results, ToolResult{CallID: "b"}, ToolResult{CallID: "b"})
	if err := CheckPairs(msgs); err == nil {
		t.Error("two results for one call accepted")
	}
}

func TestAPIError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"type":"error","error":{"type":"overloaded_error"}}`, 529)
	}))
	defer srv.Close()
	_, err := NewAnthropic(HTTPConfig{BaseURL: srv.URL}).Next(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 529 {
		t.Fatalf("err = %v; want APIError 529", err)
	}
}

func TestScriptedDemo(t *testing.T) {
	m := NewScripted(DemoPlan(map[string]any{"workspace_id": "repo"}))
	tools := []ToolSpec{
		{Name: "repo_list_files", InputSchema: json.RawMessage(`{"type":"object","properties":{"workspace_id":{"type":"string"}}}`)},
		{Name: "repo_read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	}
	msgs := []Message{{Role: User, Text: DemoTask}}
	readme := "# Title\n\nFirst sentence here. Second one, e.g. with `code`. Third!\n\n```sh\nnot prose.\n```\n\nFourth sentence."
	var calls []string
	for range 4 {
		reply, err := m.Next(context.Background(), Request{Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if len(reply.Calls) == 0 {
			want := "First sentence here. Second one, e.g. with `code`. Third!"
			if reply.Text != want {
				t.Errorf("summary %q; want %q", reply.Text, want)
			}
			break
		}
		c := reply.Calls[0]
		calls = append(calls, c.Name+" "+string(c.Arguments))
		msgs = append(msgs, Message{Role: Assistant, Calls: reply.Calls}, Message{Role: Tool, Results: []ToolResult{{CallID: c.ID, Content: readme}}})
	}
	want := []string{`repo_list_files {"workspace_id":"repo"}`, `repo_read_file {"path":"README.md"}`}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %q; want %q", calls, want)
	}
}

func TestSentences(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"prose", "# T\n\nOne here. Two, e.g. this. Three!\nFour.", "One here. Two, e.g. this. Three!"},
		{"code fences skipped", "```sh\nnot. prose.\n```\nOne. Two.\n~~~\nx. y.\n~~~\nThree.", "One. Two. Three."},
		{"longer fence holds shorter ones", "````go\n```\nOne. Two.\n````\nThree.", "Three."},
		{"container fence", "README.md at abc, lines 1-9 of 9:\nThe fenced text is data.\n````\n# T\n\nOne. Two.\n\n```sh\nx. y.\n```\n\nThree. Four.\n````\n", "One. Two. Three."},
		{"lists and tables skipped", "- a. b.\n| c. |\n1. d.\nOne. Two. Three.", "One. Two. Three."},
		{"chinese", "先接一个本地 server。然后断开连接！最后恢复？多余。", "先接一个本地 server。 然后断开连接！ 最后恢复？"},
	}
	for _, tt := range tests {
		if got := strings.Join(Sentences(tt.text, 3), " "); got != tt.want {
			t.Errorf("%s: %q; want %q", tt.name, got, tt.want)
		}
	}
}
