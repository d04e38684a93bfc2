package jsonl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/jsonl"
	"github.com/repo-mcp/repo-mcp/harness/model"
)

func TestServe(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("One. Two. Three. Four."), 0o644)
	cfg, err := config.Parse([]byte("state_dir: "+t.TempDir()+"\nlocal: {workspace: "+ws+", tools: {list_files: {effect: read_only}, read_file: {effect: read_only}}}\n"), "/")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := jsonl.NewWriter(&out)
	h, err := harness.New(context.Background(), harness.Options{Config: cfg, Observe: w.Event})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`not json
{"cmd":"submit","task":"x","extra":1}
{"id":"a","cmd":"frobnicate"}
{"id":"b","cmd":"submit"}
{"id":"c","cmd":"approve","run":"nope","call":"c1","by":"alice"}

{"id":"d","cmd":"submit","task":"` + model.DemoTask + `"}
`)
	if err := jsonl.Serve(context.Background(), h, in, w); err != nil {
		t.Fatal(err)
	}
	h.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var hello jsonl.Hello
	json.Unmarshal([]byte(lines[0]), &hello)
	if hello.Type != "hello" || len(hello.Tools) != 2 {
		t.Fatalf("first line %s", lines[0])
	}
	var errs []string
	answered := false
	for _, l := range lines[1:] {
		var r jsonl.Response
		json.Unmarshal([]byte(l), &r)
		if r.Type == "response" && !r.OK {
			errs = append(errs, r.ID+" "+r.Error)
		}
		if strings.Contains(l, `"type":"answer"`) && strings.Contains(l, "One. Two. Three.") {
			answered = true
		}
	}
	want := []string{" malformed command: invalid character", " malformed command: json: unknown field", `a unknown command "frobnicate"`, "b submit needs a task", "c harness: no such run"}
	if len(errs) != len(want) {
		t.Fatalf("errors %q", errs)
	}
	for i := range want {
		if !strings.HasPrefix(errs[i], want[i]) {
			t.Errorf("error %d: %q; want %q...", i, errs[i], want[i])
		}
	}
	if !answered {
		t.Errorf("the run did not answer:\n%s", out.String())
	}
}
