package server

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/repo-mcp/repo-mcp/internal/jsonquote"
	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
)

// Prepared results.
//
// go-sdk encodes a tools/call result with encoding/json through two
// json.Marshalers (CallToolResult and TextContent): the text is escaped once
// and every byte is then re-validated and re-compacted twice. For a tool
// whose result is a whole file or a 10 000-entry listing, that is most of
// the server's time. The server therefore encodes such a result itself,
// once, and hands the engine a result whose payload is empty; the
// transport puts the prepared payload in place of the empty one when the
// engine's response to that request goes out: on stdio the frame writer
// (frame.go), over HTTP the guard, which holds the response back
// (http.go). Everything else the engine puts in the result is kept.

// preparedKey is the context key under which a transport that can write
// prepared results offers its [resultPreparer].
type preparedKey struct{}

// resultPreparer is implemented by a transport connection that writes
// prepared results: it holds data as the payload of the response to id.
// The payload is encoded into a buffer it gives (payloadBuffer), and
// takes back once it has written the payload: a page of a megabyte is
// not a new buffer per call, cleared and faulted in.
type resultPreparer interface {
	payloadBuffer(n int) []byte
	prepare(id jsonrpc.ID, payload []byte)
}

// Payload buffers a transport keeps for reuse: two (one being written
// while the next call's is encoded), of up to 4 MiB (a read_file page of
// 1 MiB is 1.2 MiB escaped).
const (
	keptPayloads   = 2
	maxKeptPayload = 4 << 20
)

func withPreparer(ctx context.Context, p resultPreparer) context.Context {
	return context.WithValue(ctx, preparedKey{}, p)
}

// minPrepared is the payload size from which preparing pays for the
// splice: smaller results go through the engine unchanged.
const minPrepared = 512

// prepareResult offers the payload of res to the connection the call came
// on, and returns what the engine should send in its place: wire with its
// content and structured content left empty. It returns wire, its text
// content made whole, when the connection cannot take prepared results or
// res is small.
func prepareResult(ctx context.Context, req *Request, res *Result, wire *mcp.CallToolResult) *mcp.CallToolResult {
	p, ok := ctx.Value(preparedKey{}).(resultPreparer)
	if !ok || res.size() < minPrepared || !req.rpcID.IsValid() {
		return wholeText(res, wire)
	}
	payload, err := encodePayload(p.payloadBuffer(payloadSize(res)), res, wire.Content[1:])
	if err != nil {
		return wholeText(res, wire)
	}
	p.prepare(req.rpcID, payload)
	stripped := *wire
	stripped.Content = []mcp.Content{}
	stripped.StructuredContent = nil
	return &stripped
}

// wholeText returns wire with its text content (the first) taken from
// res, joined if it is in pieces.
func wholeText(res *Result, wire *mcp.CallToolResult) *mcp.CallToolResult {
	if res.pieces != nil {
		wire.Content[0] = &mcp.TextContent{Text: res.FullText()}
	}
	return wire
}

// payloadSize is the room a result's payload takes, the text's escapes
// included (a tenth more for source code, whose newlines, tabs and quotes
// are escaped): growing a buffer of a large text copies all of it each
// time.
func payloadSize(res *Result) int {
	n := res.TextLen()
	return n + n/8 + len(res.Structured) + 64
}

// encodePayload appends to data the members of a result that carry its
// payload, content and structuredContent, as the inside of a JSON object.
// The content is the text, then more, the result's resource links.
func encodePayload(data []byte, res *Result, more []mcp.Content) ([]byte, error) {
	data = append(data, `"content":[{"type":"text","text":"`...)
	// The text is escaped once, from its pieces, with < > and & kept as
	// they are (source code is full of them).
	data = jsonquote.AppendEscaped(data, res.Text, false)
	for _, p := range res.pieces {
		data = jsonquote.AppendEscaped(data, p, false)
	}
	data = append(data, `"}`...)
	for _, c := range more {
		item, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		data = append(append(data, ","...), item...)
	}
	data = append(data, "]"...)
	if res.Err == nil && res.Structured != nil {
		data = append(data, `,"structuredContent":`...)
		data = append(data, res.Structured...)
	}
	return data, nil
}

// appendSpliced appends the engine's encoding of a result, a JSON object
// made by encoding/json, with its content and structuredContent members
// replaced by payload.
func appendSpliced(out []byte, engine json.RawMessage, payload []byte) []byte {
	out = append(out, '{')
	out = append(out, payload...)
	return append(appendOtherMembers(out, engine), '}')
}

// appendOtherMembers appends the members of the engine's encoding of a
// result but its content and structuredContent, each after a comma.
func appendOtherMembers(out []byte, engine json.RawMessage) []byte {
	for key, value := range jsonscan.Members(bytes.TrimSpace(engine)) {
		if key == "content" || key == "structuredContent" {
			continue
		}
		out = append(out, ',')
		out = fastjson.AppendEscape(out, key, 0)
		out = append(out, ':')
		out = append(out, value...)
	}
	return out
}
