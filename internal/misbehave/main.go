// Command misbehave is an MCP stdio server that breaks the rules on purpose,
// for testing clients. Nobody should deploy it.
//
// With -record it copies every line it receives to stderr. The -mode flag
// (or MISBEHAVE_MODE) picks a handshake-level defect:
//
//	normal        legacy server; answers server/discover with -32601
//	modern        answers server/discover; requires the 2026 _meta on every request
//	mute          never answers anything
//	discover-hang never answers server/discover, otherwise normal
//	exit1         writes to stderr and exits with status 1 on initialize
//	chatty-init   sends a notification and a roots/list request (id 0) before the initialize result
//	counteroffer  answers initialize with 2025-06-18
//	badversion    answers initialize with 1999-01-01
//	stubborn      ignores the end of stdin and SIGTERM
//	endless-pages tools/list always has a next page
//	list-dies     exits while answering tools/list
//	deep-schema   echo's input schema nests 4,995 schemas (9,990 JSON levels)
//	              deep: the deepest a JSON decoder with encoding/json's
//	              limit of 10,000 still reads as one tools/list answer
//
// Each tool misbehaves when called (see call): echo, hang, wrongid, big,
// bigtail, flood, garbage, die, chatty, change, mixed, slow.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

type server struct {
	mode   string
	record bool

	mu      sync.Mutex // serialises stdout
	out     *bufio.Writer
	changed bool // the tool list has grown

	replies  sync.Mutex
	awaiting map[string]chan json.RawMessage // answers to our own requests, by raw id
}

type msg struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func main() {
	mode := flag.String("mode", os.Getenv("MISBEHAVE_MODE"), "defect to exhibit")
	record := flag.Bool("record", false, "copy every line received to stderr, prefixed \"recv: \"")
	flag.Parse()
	s := &server{mode: *mode, record: *record, out: bufio.NewWriterSize(os.Stdout, 1<<20), awaiting: map[string]chan json.RawMessage{}}
	if s.mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			s.handle(line)
		}
		if err != nil {
			break
		}
	}
	if s.mode == "stubborn" {
		time.Sleep(time.Hour) // ignore the end of stdin
	}
}

func (s *server) handle(line []byte) {
	if s.record {
		fmt.Fprintf(os.Stderr, "recv: %s", line)
	}
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintf(os.Stderr, "misbehave: bad line %q\n", line)
		return
	}
	if m.Method == "" { // an answer to one of our requests
		s.replies.Lock()
		ch := s.awaiting[string(m.ID)]
		s.replies.Unlock()
		if ch != nil {
			ch <- line
		}
		return
	}
	if m.Method == "notifications/cancelled" {
		fmt.Fprintf(os.Stderr, "misbehave: cancelled %s\n", m.Params)
	}
	if s.mode == "mute" || len(m.ID) == 0 {
		return
	}
	if s.mode == "modern" && !hasModernMeta(m.Params) {
		s.fail(m.ID, -32602, "missing io.modelcontextprotocol/protocolVersion in _meta")
		return
	}
	switch m.Method {
	case "server/discover":
		s.discover(m)
	case "initialize":
		s.initialize(m)
	case "tools/list":
		s.list(m)
	case "tools/call":
		go s.call(m)
	default:
		s.fail(m.ID, -32601, "method not found: "+m.Method)
	}
}

func hasModernMeta(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	return p.Meta["io.modelcontextprotocol/protocolVersion"] != nil && p.Meta["io.modelcontextprotocol/clientCapabilities"] != nil
}

func (s *server) discover(m msg) {
	switch s.mode {
	case "modern":
		s.reply(m.ID, map[string]any{
			"resultType": "complete", "supportedVersions": []string{"2026-07-28"},
			"capabilities": map[string]any{"tools": map[string]any{}}, "ttlMs": 0, "cacheScope": "public",
			"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "misbehave", "version": "1"}},
		})
	case "discover-hang":
	default:
		s.fail(m.ID, -32601, "method not found: server/discover")
	}
}

func (s *server) initialize(m msg) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(m.Params, &p)
	version := p.ProtocolVersion
	switch s.mode {
	case "exit1":
		fmt.Fprintln(os.Stderr, "misbehave: refusing to initialize")
		os.Exit(1)
	case "chatty-init":
		s.send(msg{Method: "notifications/tools/list_changed"})
		s.send(msg{Method: "notifications/misbehave/early"})
		go s.ask("roots/list", json.RawMessage("0"))
	case "counteroffer":
		version = "2025-06-18"
	case "badversion":
		version = "1999-01-01"
	}
	s.reply(m.ID, map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
		"serverInfo":      map[string]string{"name": "misbehave", "version": "1"},
	})
}

func tool(name string) map[string]any {
	return map[string]any{"name": name, "description": "misbehaves: " + name,
		"inputSchema": map[string]any{"type": "object"}}
}

var toolNames = []string{"echo", "hang", "wrongid", "big", "bigtail", "flood", "garbage", "die", "chatty", "change", "mixed", "slow"}

// deepSchema is an input schema nested depth objects deep.
func deepSchema(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat("}}", depth))
}

func (s *server) list(m msg) {
	if s.mode == "list-dies" {
		fmt.Fprintln(os.Stderr, "misbehave: dying during tools/list")
		os.Exit(3)
	}
	names := toolNames
	s.mu.Lock()
	if s.changed {
		names = append(names[:len(names):len(names)], "added")
	}
	s.mu.Unlock()
	var tools []any
	const placeholder = "the deep schema"
	for _, n := range names {
		t := tool(n)
		if s.mode == "deep-schema" && n == "echo" {
			t["inputSchema"] = placeholder
		}
		tools = append(tools, t)
	}
	result := map[string]any{"tools": tools}
	if s.mode == "endless-pages" {
		result["nextCursor"] = "again"
	}
	if s.mode == "deep-schema" {
		// Spliced in: encoding/json refuses to write JSON this deep.
		line := string(mustJSON(msg{JSONRPC: "2.0", ID: m.ID, Result: mustJSON(result)}))
		s.raw(strings.Replace(line, `"`+placeholder+`"`, string(deepSchema(4995)), 1) + "\n")
		return
	}
	s.reply(m.ID, result)
}

// call makes each tool misbehave in its own way.
func (s *server) call(m msg) {
	var p struct {
		Name string `json:"name"`
		Args struct {
			Msg   string `json:"msg"`
			Bytes int64  `json:"bytes"`
			MS    int    `json:"ms"`
		} `json:"arguments"`
	}
	json.Unmarshal(m.Params, &p)
	switch p.Name {
	case "echo":
		s.reply(m.ID, text(p.Args.Msg))
	case "hang":
		fmt.Fprintf(os.Stderr, "misbehave: hanging on request %s\n", m.ID)
	case "wrongid":
		s.send(msg{ID: json.RawMessage(fmt.Sprintf("%q", string(m.ID))), Result: mustJSON(text("wrong id type"))})
		s.send(msg{ID: json.RawMessage("999999"), Result: mustJSON(text("unknown id"))})
		s.reply(m.ID, text("right id"))
	case "big", "bigtail":
		s.bigAnswer(m.ID, p.Name == "bigtail")
	case "flood":
		flood(p.Args.Bytes)
		s.reply(m.ID, text("flooded"))
	case "garbage":
		s.raw("this is not JSON\n{\"truncated\": \n[1,2,3]\n\n")
		s.reply(m.ID, text("after garbage"))
	case "die":
		fmt.Fprintln(os.Stderr, "misbehave: about to be killed")
		p, _ := os.FindProcess(os.Getpid())
		p.Kill() // SIGKILL: no deferred function, no exit handler runs
	case "chatty":
		s.chatty(m.ID)
	case "change":
		s.mu.Lock()
		s.changed = true
		s.mu.Unlock()
		s.send(msg{Method: "notifications/tools/list_changed"})
		s.reply(m.ID, text("changed"))
	case "mixed":
		s.reply(m.ID, map[string]any{
			"content": []any{
				map[string]any{"type": "text", "text": "caption"},
				map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
				map[string]any{"type": "resource_link", "uri": "file:///x", "name": "x"},
				map[string]any{"type": "hologram", "beam": 3},
				map[string]any{"type": "text"},
			},
			"structuredContent": map[string]any{"answer": 42},
			"isError":           true,
		})
	case "slow":
		time.Sleep(time.Duration(p.Args.MS) * time.Millisecond)
		s.reply(m.ID, text(p.Args.Msg))
	default:
		s.fail(m.ID, -32602, "unknown tool: "+p.Name)
	}
}

// bigAnswer writes a 20 MB result, with the id first or (like TypeScript
// servers) after the result.
func (s *server) bigAnswer(id json.RawMessage, idLast bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idLast {
		s.out.WriteString(`{"result":{"content":[{"type":"text","text":"`)
	} else {
		fmt.Fprintf(s.out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
	}
	chunk := strings.Repeat("A", 1<<20)
	for range 20 {
		s.out.WriteString(chunk)
	}
	if idLast {
		fmt.Fprintf(s.out, `"}]},"jsonrpc":"2.0","id":%s}`+"\n", id)
	} else {
		s.out.WriteString("\"}]}}\n")
	}
	s.out.Flush()
}

// flood writes n bytes to stderr in 8 KiB lines.
func flood(n int64) {
	line := []byte(strings.Repeat("E", 8<<10-1) + "\n")
	block := []byte(strings.Repeat(string(line), 128)) // 1 MiB
	w := io.Writer(os.Stderr)
	for n > 0 {
		b := block[:min(int64(len(block)), n)]
		if _, err := w.Write(b); err != nil {
			return
		}
		n -= int64(len(b))
	}
}

// chatty sends unknown notifications and server-to-client requests, waits for
// the client's answers, and reports them in its result.
func (s *server) chatty(id json.RawMessage) {
	s.send(msg{Method: "notifications/misbehave/unknown", Params: json.RawMessage(`{"x":1}`)})
	s.send(msg{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"hi"}`)})
	var report []string
	for _, q := range []struct{ method, id string }{{"roots/list", "0"}, {"ping", `"p-1"`}, {"sampling/createMessage", "7"}, {"elicitation/create", `"e"`}} {
		report = append(report, q.method+" "+q.id+" -> "+string(s.ask(q.method, json.RawMessage(q.id))))
	}
	s.reply(id, text(strings.Join(report, "\n")))
}

// ask sends a request to the client and returns its compacted answer.
func (s *server) ask(method string, id json.RawMessage) []byte {
	ch := make(chan json.RawMessage, 1)
	s.replies.Lock()
	s.awaiting[string(id)] = ch
	s.replies.Unlock()
	s.send(msg{ID: id, Method: method, Params: json.RawMessage(`{}`)})
	answer := <-ch
	var m map[string]json.RawMessage
	json.Unmarshal(answer, &m)
	delete(m, "jsonrpc")
	out, _ := json.Marshal(m)
	return out
}

func text(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *server) reply(id json.RawMessage, result any) {
	s.send(msg{ID: id, Result: mustJSON(result)})
}

func (s *server) fail(id json.RawMessage, code int, message string) {
	s.send(msg{ID: id, Error: mustJSON(map[string]any{"code": code, "message": message})})
}

func (s *server) send(m msg) {
	m.JSONRPC = "2.0"
	s.raw(string(mustJSON(m)) + "\n")
}

func (s *server) raw(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.WriteString(text)
	s.out.Flush()
}
