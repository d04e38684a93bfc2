package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type blobIn struct {
	Text   string `json:"text"`
	Repeat int    `json:"repeat"`
	Fail   bool   `json:"fail,omitempty"`
}

type blobOut struct {
	Text  string   `json:"text"`
	Lines []string `json:"lines"`
}

type blobText struct{ blobOut }

func (o blobText) Text() string { return "text content: " + o.blobOut.Text }

// blobPieces gives blobText's text in pieces ([TextPiecer]): one per line.
type blobPieces struct{ blobOut }

func (o blobPieces) TextPieces() [][]byte {
	pieces := [][]byte{[]byte("text content: ")}
	for line := range strings.SplitAfterSeq(o.blobOut.Text, "\n") {
		pieces = append(pieces, []byte(line))
	}
	return pieces
}

// newBlobServer serves two tools whose result repeats the text it is
// given, as text content (blob's a string, pieces' in pieces) and in their
// structured content.
func newBlobServer() *Server {
	s := New(Info{Name: "blob", Version: "v0"}, Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	MustRegister(s, Tool{Name: "blob", Description: "Repeats text.", Effect: ReadOnly},
		func(_ context.Context, _ *Request, in blobIn) (blobText, error) {
			if in.Fail {
				return blobText{}, Errorf(NotFound, "no %s", strings.Repeat(in.Text, in.Repeat))
			}
			text := strings.Repeat(in.Text, in.Repeat)
			return blobText{blobOut{Text: text, Lines: strings.Split(text, "\n")}}, nil
		})
	MustRegister(s, Tool{Name: "pieces", Description: "Repeats text, in pieces.", Effect: ReadOnly},
		func(_ context.Context, _ *Request, in blobIn) (blobPieces, error) {
			if in.Fail {
				return blobPieces{}, Errorf(NotFound, "no %s", strings.Repeat(in.Text, in.Repeat))
			}
			text := strings.Repeat(in.Text, in.Repeat)
			return blobPieces{blobOut{Text: text, Lines: strings.Split(text, "\n")}}, nil
		})
	return s
}

// exchange serves s (results prepared or not), sends the client lines
// and returns the replies.
func exchange(t *testing.T, prepared bool, lines []string) []string {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- newBlobServer().serve(context.Background(), serverIn, serverOut, prepared) }()
	replies := bufio.NewReader(clientIn)
	var got []string
	for _, line := range lines {
		if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"notifications/`) {
			continue
		}
		reply, err := replies.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, reply)
	}
	clientOut.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return got
}

// post sends one message to the server's HTTP handler and returns the
// response body.
func post(t *testing.T, tool, msg string) string {
	t.Helper()
	ts := httptest.NewServer(newBlobServer().HTTPHandler(HTTPOptions{}))
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if !strings.Contains(string(body), `"result":{"content":`) {
		t.Errorf("the result was not prepared: %.200s", body)
	}
	return string(body)
}

// sameResult compares two JSON-RPC responses.
func sameResult(t *testing.T, name, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", name, err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s: prepared response differs (-engine +prepared):\n%s", name, diff)
	}
}

// TestPreparedResultsMatchTheEngine checks that a result the server
// encodes itself reads exactly as go-sdk's encoding of the same result, in
// both protocol eras, for text that exercises JSON string escaping, given
// whole or in pieces.
func TestPreparedResultsMatchTheEngine(t *testing.T) {
	texts := map[string]string{
		"plain":         "package main\n\nfunc main() {}\n",
		"quotes":        `a "quoted" \ back\slash` + "\t\r\n",
		"controls":      "\x00\x01\x1f\x7f end",
		"html":          "<script>&amp;</script>",
		"separators":    "line\u2028sep\u2029para",
		"non-ascii":     "héllo 世界 🙂 \U0010FFFF",
		"invalid utf-8": "bad \xff\xfe bytes \xc3",
		// Over minPayloadPart with the structured result (which holds the
		// text twice): the payload is written as a part of its own.
		"large": strings.Repeat("\tx := \"<y>\"\n", minPayloadPart/12/3+1),
	}
	legacy := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	modernMeta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	for name, text := range texts {
		for _, tool := range []string{"blob", "pieces"} {
			testPrepared(t, tool, name+"/"+tool, text, legacy, modernMeta)
		}
	}
}

// testPrepared compares the prepared and the engine's answers of tool for
// text, failing and not, in both eras and over HTTP.
func testPrepared(t *testing.T, tool, name, text string, legacy []string, modernMeta string) {
	t.Helper()
	for _, fail := range []bool{false, true} {
		args, _ := json.Marshal(blobIn{Text: text, Repeat: 2000/len(text) + 1, Fail: fail})
		args = append([]byte(`{"request_id":"r-1",`), args[1:]...)
		for era, lines := range map[string][]string{
			"legacy": append(legacy[:2:2], `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"`+tool+`","arguments":`+string(args)+`}}`),
			"modern": {`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + modernMeta + `,"name":"` + tool + `","arguments":` + string(args) + `}}`},
		} {
			engine := exchange(t, false, lines)
			prepared := exchange(t, true, lines)
			for i := range engine {
				sameResult(t, fmt.Sprintf("%s/%s fail=%v", name, era, fail), engine[i], prepared[i])
			}
			if last := prepared[len(prepared)-1]; !strings.HasPrefix(last[strings.Index(last, `"result":`):], `"result":{"content":`) {
				t.Errorf("%s/%s: the result was not prepared: %.200s", name, era, last)
			}
			if era == "modern" {
				sameResult(t, name+" over HTTP", engine[0], post(t, tool, lines[0]))
			}
		}
	}
}
