package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/repo-mcp/repo-mcp/internal/peers"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the server sections of testdata/toolsets/*.txtar and testdata/resources/*.txtar")

// TestToolsetsPerIdentity serves one workspace over HTTP, with the
// families of the testdata/toolsets file's flags, to three identities
// whose policies grant different actions, and replays each file's client
// lines with that identity's token. The server section pins what the
// identity is offered (tools/list, schemas elided: schemas/ pins them) and
// that a call to a tool hidden from it is refused as an unknown tool.
func TestToolsetsPerIdentity(t *testing.T) {
	files, err := filepath.Glob("testdata/toolsets/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	root, _ := fixtureRepo(t)
	tokens := map[string]string{}
	var entries strings.Builder
	for _, id := range []string{"reader", "proposer", "maintainer"} {
		token, entry := makeToken(t, id)
		tokens[id] = token
		entries.WriteString(entry)
	}
	config := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, config, fmt.Sprintf(`workspaces:
  - id: fx
    root: %q
policies:
  - identity: reader
    workspaces: [fx]
    actions: [read, search]
  - identity: proposer
    workspaces: [fx]
    actions: [read, search, propose, verify]
  - identity: maintainer
    workspaces: ["*"]
    actions: [read, search, propose, apply, verify]
toolsets: [read, search, history, propose, apply, verify]
tokens:
%s`, root, entries.String()))
	servers := map[string]string{} // by flags, started by the parent test so that they outlive subtests
	url := func(flags string) string {
		if u, ok := servers[flags]; ok {
			return u
		}
		args := append([]string{"serve", "--http", "127.0.0.1:0", "--index-cache", "off", "--config", config}, strings.Fields(flags)...)
		servers[flags] = peers.StartHTTP(t, repoMCP(t), args...)
		return servers[flags]
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		identity, flags := transcriptHeader(t, ar.Comment)
		url := url(flags)
		t.Run(filepath.Base(file), func(t *testing.T) {
			got := replayHTTP(t, url, tokens[identity], section(ar, "client"))
			if *update {
				setSection(ar, "server", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(section(ar, "server"), got); diff != "" {
				t.Errorf("replies differ (-want +got; go test -run TestToolsetsPerIdentity -update rewrites them):\n%s", diff)
			}
		})
	}
}

// transcriptHeader reads the identity: and flags: lines of a transcript's
// comment.
func transcriptHeader(t *testing.T, comment []byte) (identity, flags string) {
	for line := range strings.Lines(string(comment)) {
		if v, ok := strings.CutPrefix(line, "identity: "); ok {
			identity = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "flags: "); ok {
			flags = strings.TrimSpace(v)
		}
	}
	if identity == "" {
		t.Fatal("the transcript names no identity: line")
	}
	return identity, flags
}

// replayHTTP posts each client line as one 2026-07-28 request with token,
// and returns one line per reply, with schemas and generated ids elided.
func replayHTTP(t *testing.T, url, token, client string) string {
	var out strings.Builder
	for line := range strings.Lines(client) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("client line %s: %v", line, err)
		}
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", msg.Method)
		if msg.Params.Name != "" {
			req.Header.Set("Mcp-Name", msg.Params.Name)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%d %s\n", resp.StatusCode, elide(t, eventData(body)))
	}
	return out.String()
}

// eventData returns the JSON of a reply sent as an event stream, or the
// body as it is.
func eventData(body []byte) []byte {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			return bytes.Clone(data)
		}
	}
	return bytes.TrimSpace(body)
}

var requestIDPattern = regexp.MustCompile(`"r-[0-9a-f]{16}"`)

// elide replaces each tool's schemas by "…" (schemas/ pins them), and
// request ids by a fixed one.
func elide(t *testing.T, reply []byte) string {
	var m map[string]any
	if err := json.Unmarshal(reply, &m); err != nil {
		return string(reply)
	}
	if res, ok := m["result"].(map[string]any); ok {
		if tools, ok := res["tools"].([]any); ok {
			for _, tool := range tools {
				tool := tool.(map[string]any)
				for _, k := range []string{"inputSchema", "outputSchema", "description"} {
					if tool[k] != nil {
						tool[k] = "…"
					}
				}
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return requestIDPattern.ReplaceAllString(string(out), `"r-…"`)
}

func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}
