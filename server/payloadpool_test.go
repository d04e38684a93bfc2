package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// nextCallWriter stands for the connection while a prepared payload is
// written: when the payload is written, it first encodes another call's
// payload into a buffer from the same pool (as a call answered meanwhile
// would), then keeps what it was given. A payload buffer given back to the
// pool before its write would be that other call's buffer, and the bytes
// kept would be the other call's.
type nextCallWriter struct {
	get  func(n int) []byte
	kept bytes.Buffer
}

func (w *nextCallWriter) Write(p []byte) (int, error) {
	if len(p) >= minPayloadPart {
		other := w.get(len(p))
		_ = append(other, bytes.Repeat([]byte{'X'}, len(p))...)
	}
	return w.kept.Write(p)
}

// TestPayloadBufferOutlivesItsWrite checks, on stdio, that the buffer of a
// prepared payload goes back to the pool only once the payload is written.
func TestPayloadBufferOutlivesItsWrite(t *testing.T) {
	w := &nextCallWriter{}
	c := newFrameConn(strings.NewReader(""), w, DefaultMaxFrameBytes, slog.New(slog.DiscardHandler))
	w.get = c.payloadBuffer
	id, _ := jsonrpc.MakeID(float64(1))
	payload := append(c.payloadBuffer(minPayloadPart), `"content":[{"type":"text","text":"`...)
	payload = append(append(payload, strings.Repeat("p", minPayloadPart)...), `"}]`...)
	want := string(payload)
	c.prepare(id, payload)
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"content":[]}`)}); err != nil {
		t.Fatal(err)
	}
	if got := w.kept.String(); !strings.Contains(got, want) {
		t.Fatalf("the payload written is not the one prepared: %.120q...", got)
	}
	// Once written, the buffer is the next call's.
	if next := c.payloadBuffer(minPayloadPart); &next[:1][0] != &payload[:1][0] {
		t.Error("the payload's buffer was not given back after its write")
	}
}

// recorderWriter is an http.ResponseWriter over a nextCallWriter.
type recorderWriter struct {
	*httptest.ResponseRecorder
	next *nextCallWriter
}

func (r recorderWriter) Write(p []byte) (int, error) {
	r.next.Write(p)
	return r.ResponseRecorder.Write(p)
}

// TestPayloadBufferOutlivesItsWriteHTTP checks the same over HTTP, where
// the payload is written between the engine's head and tail of the body.
func TestPayloadBufferOutlivesItsWriteHTTP(t *testing.T) {
	g := newBlobServer().HTTPHandler(HTTPOptions{}).(*httpGuard)
	text := strings.Repeat("\tline \"quoted\"\n", minPayloadPart/16)
	args, _ := json.Marshal(blobIn{Text: text, Repeat: 1})
	msg := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},"name":"pieces","arguments":` + string(args) + `}}`
	req := httptest.NewRequest("POST", "http://127.0.0.1/", strings.NewReader(msg))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "pieces"} {
		req.Header.Set(k, v)
	}
	rec := recorderWriter{httptest.NewRecorder(), &nextCallWriter{get: g.payloads.Get}}
	g.ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	var resp struct {
		Result struct {
			Content []struct{ Text string }
		}
	}
	if rec.Code != http.StatusOK || json.Unmarshal(body, &resp) != nil || len(resp.Result.Content) == 0 {
		t.Fatalf("status %d, body %.200q", rec.Code, body)
	}
	if got := resp.Result.Content[0].Text; got != "text content: "+text {
		t.Fatalf("the text answered is not the text read: %.80q", got)
	}
	if cl := rec.Header().Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %s for a body of %d bytes", cl, len(body))
	}
}
