package gonav

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// lspClient speaks just enough LSP to ask one gopls process many
// questions: the CLI loads the workspace again for every one.
type lspClient struct {
	t    testing.TB
	dir  string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
	next int
}

// startGopls starts gopls on the repository at dir with the workspace
// folder folder (dir itself, or its src for a Go distribution's tree);
// env adds to or overrides its environment.
func startGopls(t testing.TB, gopls, dir, folder string, env ...string) *lspClient {
	t.Helper()
	cmd := exec.Command(gopls, "serve")
	cmd.Dir = folder
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	cmd.Env = append(cmd.Env, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &lspClient{t: t, dir: dir, cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	root := (&url.URL{Scheme: "file", Path: folder}).String()
	c.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": root, "capabilities": map[string]any{},
		"workspaceFolders": []map[string]any{{"uri": root, "name": "corpus"}},
	}, nil)
	c.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	return c
}

func (c *lspClient) uri(rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.Join(c.dir, filepath.FromSlash(rel))}).String()
}

func (c *lspClient) send(msg any) {
	data, _ := json.Marshal(msg)
	fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(data), data)
}

func (c *lspClient) read() map[string]json.RawMessage {
	n := 0
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("gopls: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.out, buf); err != nil {
		c.t.Fatalf("gopls: %v", err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(buf, &m)
	return m
}

// call sends a request and decodes its result into v, answering the
// requests gopls makes meanwhile (configuration, progress) with nothing.
func (c *lspClient) call(method string, params, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	id := c.next
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		m := c.read()
		if _, isReq := m["method"]; isReq {
			if rid, ok := m["id"]; ok {
				var result any
				if string(m["method"]) == `"workspace/configuration"` {
					var p struct{ Items []any }
					json.Unmarshal(m["params"], &p)
					result = make([]any, len(p.Items))
				}
				c.send(map[string]any{"jsonrpc": "2.0", "id": rid, "result": result})
			}
			continue
		}
		if string(m["id"]) != strconv.Itoa(id) {
			continue
		}
		if e, ok := m["error"]; ok {
			c.t.Fatalf("gopls %s: %s", method, e)
		}
		if v != nil {
			if err := json.Unmarshal(m["result"], v); err != nil {
				c.t.Fatalf("gopls %s: %v: %s", method, err, m["result"])
			}
		}
		return
	}
}

type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

type lspLocation struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

// position turns a 1-based line and byte column into an LSP position
// (0-based, UTF-16).
func (c *lspClient) position(file string, line, col int) lspPosition {
	text := c.line(file, line)
	return lspPosition{Line: line - 1, Character: len(utf16.Encode([]rune(text[:min(col-1, len(text))])))}
}

// loc renders an LSP location as file:line:column, the column in bytes,
// the file relative to the corpus ($GOROOT/... and $GOMODCACHE/... as
// go_navigate names them).
func (c *lspClient) loc(l lspLocation, r roots) string {
	u, err := url.Parse(l.URI)
	if err != nil {
		return l.URI
	}
	name, ok := r.display(u.Path)
	if !ok {
		name = u.Path
	}
	if inRepo(name) {
		if rel, err := filepath.Rel(c.dir, u.Path); err == nil {
			name = filepath.ToSlash(rel)
		}
	}
	text := c.lineAt(u.Path, l.Range.Start.Line+1)
	units := 0
	col := 0
	for col < len(text) && units < l.Range.Start.Character {
		r, size := utf8.DecodeRuneInString(text[col:])
		col += size
		units += len(utf16.Encode([]rune{r}))
	}
	return fmt.Sprintf("%s:%d:%d", name, l.Range.Start.Line+1, col+1)
}

func (c *lspClient) line(file string, line int) string {
	return c.lineAt(filepath.Join(c.dir, filepath.FromSlash(file)), line)
}

func (c *lspClient) lineAt(path string, line int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	return lines[line-1]
}

func (c *lspClient) docPos(file string, line, col int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": c.uri(file)}, "position": c.position(file, line, col)}
}

// locations asks a request whose result is a list of locations.
func (c *lspClient) locations(method, file string, line, col int, extra map[string]any, r roots) []string {
	params := c.docPos(file, line, col)
	for k, v := range extra {
		params[k] = v
	}
	var locs []lspLocation
	c.call(method, params, &locs)
	var out []string
	for _, l := range locs {
		out = append(out, c.loc(l, r))
	}
	return out
}

// callers asks gopls's incoming calls: one location per call range.
func (c *lspClient) callers(file string, line, col int, r roots) []string {
	var items []json.RawMessage
	c.call("textDocument/prepareCallHierarchy", c.docPos(file, line, col), &items)
	var out []string
	for _, item := range items {
		var calls []struct {
			From struct {
				URI string `json:"uri"`
			} `json:"from"`
			FromRanges []lspRange `json:"fromRanges"`
		}
		c.call("callHierarchy/incomingCalls", map[string]any{"item": item}, &calls)
		for _, call := range calls {
			for _, rg := range call.FromRanges {
				out = append(out, c.loc(lspLocation{URI: call.From.URI, Range: rg}, r))
			}
		}
	}
	return out
}
