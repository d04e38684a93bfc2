package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
)

// The decoding the client did before decodeMessage read a frame in one pass:
// encoding/json three times, for the frame, the result and each content
// block. It is the reference the single-pass decoder must agree with.

type jsonMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCErrorObject `json:"error"`
}

func jsonDecodeMessage(line []byte) (jsonMessage, messageKind) {
	var m jsonMessage
	if err := json.Unmarshal(line, &m); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(line) {
			return m, kindNotJSON
		}
		return m, kindMalformed
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	switch {
	case m.Method != "" && hasID:
		return m, kindRequest
	case m.Method != "":
		return m, kindNotification
	case len(m.ID) > 0 && (m.Result != nil || m.Error != nil):
		return m, kindResponse
	}
	return m, kindMalformed
}

func jsonParseResult(raw json.RawMessage) (*Result, error) {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		ResultType        string            `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("malformed tools/call result: %w", err)
	}
	if r.ResultType != "" && r.ResultType != "complete" {
		return nil, fmt.Errorf("unsupported tools/call result type %q", r.ResultType)
	}
	res := &Result{StructuredContent: r.StructuredContent, IsError: r.IsError, Raw: raw}
	for _, block := range r.Content {
		res.Content = append(res.Content, jsonParseContent(block))
	}
	return res, nil
}

func jsonParseContent(raw json.RawMessage) Content {
	var b struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &b); err != nil || b.Type != "text" || b.Text == nil {
		return Content{Type: b.Type, Unsupported: true, Raw: raw}
	}
	return Content{Type: b.Type, Text: *b.Text, Raw: raw}
}

// decodeCall decodes a frame as the client does and, for a response, builds
// the tools/call result from it.
func decodeCall(line []byte) (message, messageKind, *Result, error) {
	m, kind := decodeMessage(line)
	if kind != kindResponse || m.Result == nil {
		return m, kind, nil, nil
	}
	res, err := m.call.result(m.Result)
	return m, kind, res, err
}

// compareDecoders decodes line both ways and reports every difference.
func compareDecoders(t *testing.T, line []byte) {
	t.Helper()
	m, kind, res, err := decodeCall(line)
	want, wantKind := jsonDecodeMessage(line)
	if kind != wantKind {
		t.Fatalf("%.200q: kind %d; encoding/json says %d", line, kind, wantKind)
	}
	if kind == kindNotJSON || kind == kindMalformed {
		return
	}
	got := jsonMessage{JSONRPC: m.JSONRPC, ID: m.ID, Method: m.Method, Params: m.Params, Result: m.Result, Error: m.Error}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: message\n%+v\nencoding/json reads\n%+v", line, got, want)
	}
	if m.Result == nil {
		return
	}
	wantRes, wantErr := jsonParseResult(want.Result)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%.200q: result error %v; encoding/json says %v", line, err, wantErr)
	}
	if !reflect.DeepEqual(res, wantRes) {
		t.Fatalf("%.200q: result\n%+v\nencoding/json reads\n%+v", line, res, wantRes)
	}
}

// answerFrame wraps a result in a response.
func answerFrame(result string) string { return `{"jsonrpc":"2.0","id":7,"result":` + result + `}` }

// textBlock is a result with one content block whose text is the JSON string s.
func textBlock(s string) string { return answerFrame(`{"content":[{"type":"text","text":` + s + `}]}`) }

// oddFrames are valid and invalid frames with everything encoding/json
// tolerates and a decoder could get wrong.
var oddFrames = []struct {
	name string
	line string
}{
	{"plain", textBlock(`"hello"`)},
	{"escapes", textBlock(`"a\"b\\c\/d\be\ff\ng\rh\ti"`)},
	{"unicode escapes", textBlock(`"\u0041\u00e9\u4e2d\u2028\u2029\u0000"`)},
	{"raw U+2028", textBlock("\"line\u2028sep\u2029para\"")},
	{"surrogate pair", textBlock(`"\ud83d\ude00 \uD83D\uDE00"`)},
	{"lone high surrogate", textBlock(`"\ud83d x"`)},
	{"lone low surrogate", textBlock(`"\ude00"`)},
	{"high then non-surrogate", textBlock(`"\ud83d\u0041"`)},
	{"high then high", textBlock(`"\ud83d\ud83d\ude00"`)},
	{"high at end", textBlock(`"\ud83d"`)},
	{"high then other escape", textBlock(`"\ud83d\n"`)},
	{"high then u without backslash", textBlock(`"\ud8000uDC00"`)},
	{"high then bad hex", textBlock(`"\ud800\uDCxx"`)},
	{"invalid UTF-8", textBlock("\"a\xffb\xc3(c\xed\xa0\x80\"")},
	{"invalid UTF-8 with escape", textBlock("\"\xff\\n\xfe\"")},
	{"valid multibyte", textBlock(`"héllo, 世界 😀"`)},
	{"U+FFFD as sent", textBlock("\"\uFFFD\"")},
	{"empty text", textBlock(`""`)},
	{"long plain text", textBlock(`"` + strings.Repeat("abcdefgh", 100) + `"`)},
	{"long text with escapes", textBlock(`"` + strings.Repeat(`func f() {\n\treturn \"x\"\n}\n`, 50) + `"`)},
	{"key order", `{"result":{"content":[{"text":"t","type":"text"}]},"id":7,"jsonrpc":"2.0"}`},
	{"white space", " \t\r\n{ \"id\" : 7 , \"result\" : { \"content\" : [ { \"type\" : \"text\" , \"text\" : \"x\" } ] , \"isError\" : true } } \n\t"},
	{"unknown fields", answerFrame(`{"content":[{"type":"text","text":"x","annotations":{"audience":["user"]},"_meta":{}}],"_meta":{"k":[1,2.5e3,-0.1E-2,true,false,null]},"extra":"y"}`)},
	{"other block types", answerFrame(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"resource_link","uri":"file:///x","name":"x"},{"type":"resource","resource":{"uri":"u","text":"t"}},{"type":"audio","data":""},{"type":"hologram","text":"t"}]}`)},
	{"block without type", answerFrame(`{"content":[{"text":"x"}]}`)},
	{"text block without text", answerFrame(`{"content":[{"type":"text"}]}`)},
	{"text null", answerFrame(`{"content":[{"type":"text","text":null}]}`)},
	{"text then null", answerFrame(`{"content":[{"type":"text","text":"a","text":null}]}`)},
	{"null then text", answerFrame(`{"content":[{"type":"text","text":null,"text":"b"}]}`)},
	{"text of the wrong type", answerFrame(`{"content":[{"type":"text","text":5}]}`)},
	{"type of the wrong type", answerFrame(`{"content":[{"type":1,"text":"x"}]}`)},
	{"type after a mismatch", answerFrame(`{"content":[{"text":[1],"type":"image"}]}`)},
	{"type null", answerFrame(`{"content":[{"type":"text","type":null,"text":"x"}]}`)},
	{"duplicate type", answerFrame(`{"content":[{"type":"image","type":"text","text":"x"}]}`)},
	{"blocks that are not objects", answerFrame(`{"content":[null,"text",5,[],true,{}]}`)},
	{"keys in another case", answerFrame(`{"Content":[{"TYPE":"text","Text":"x"}],"ISERROR":true,"StructuredContent":{"a":1}}`)},
	{"keys folded", `{"jſonrpc":"2.0","ID":7,"reſult":{"content":[{"type":"text","text":"K"}]}}`},
	{"escaped keys", `{"\u0069d":7,"r\u0065sult":{"c\u006fntent":[{"\u0074ype":"te\u0078t","\u0074ext":"x"}]}}`},
	{"escaped key not matching", `{"id":7,"result":{"content\u0000":[{"type":"text","text":"x"}]}}`},
	{"structuredContent null", answerFrame(`{"content":[],"structuredContent":null}`)},
	{"structuredContent absent", answerFrame(`{"content":[]}`)},
	{"structuredContent listing", answerFrame(`{"content":[{"type":"text","text":"a\t1\n"}],"structuredContent":{"entries":[{"path":"a","size":1},{"path":"b","size":2}],"total":2}}`)},
	{"structuredContent twice", answerFrame(`{"structuredContent":{"a":1},"structuredContent":[2]}`)},
	{"content null", answerFrame(`{"content":null}`)},
	{"content twice", answerFrame(`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"content":[{"type":"text","text":"c"}]}`)},
	{"content not an array", answerFrame(`{"content":{"type":"text","text":"x"}}`)},
	{"content a string", answerFrame(`{"content":"x"}`)},
	{"isError", answerFrame(`{"content":[{"type":"text","text":"boom"}],"isError":true}`)},
	{"isError false", answerFrame(`{"isError":false}`)},
	{"isError null", answerFrame(`{"isError":true,"isError":null}`)},
	{"isError a string", answerFrame(`{"isError":"true"}`)},
	{"resultType complete", answerFrame(`{"resultType":"complete","content":[]}`)},
	{"resultType other", answerFrame(`{"resultType":"input_required"}`)},
	{"resultType a number", answerFrame(`{"resultType":1}`)},
	{"result null", answerFrame(`null`)},
	{"result empty", answerFrame(`{}`)},
	{"result an array", answerFrame(`[1]`)},
	{"result a string", answerFrame(`"x"`)},
	{"result twice", `{"id":7,"result":{"content":[{"type":"text","text":"a"}]},"result":{"isError":true}}`},
	{"error", `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no","data":{"x":[1]}}}`},
	{"error and result", `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"},"result":{}}`},
	{"error merged", `{"id":7,"error":{"code":1},"error":{"message":"m"}}`},
	{"error null", `{"id":7,"error":{"code":1},"error":null,"result":{}}`},
	{"error code a float", `{"id":7,"error":{"code":1.5,"message":"m"}}`},
	{"error a string", `{"id":7,"error":"bad"}`},
	{"id a string", `{"id":"7","result":{}}`},
	{"id null", `{"id":null,"result":{}}`},
	{"id an object", `{"id":{"a":1},"result":{}}`},
	{"request", `{"jsonrpc":"2.0","id":0,"method":"roots/list","params":{"_meta":{}}}`},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`},
	{"method escaped", `{"jsonrpc":"2.0","method":"notifications\/progress"}`},
	{"method a number", `{"id":1,"method":5}`},
	{"jsonrpc a number", `{"jsonrpc":2,"id":7,"result":{}}`},
	{"jsonrpc null", `{"jsonrpc":null,"id":7,"result":{}}`},
	{"top-level null", `null`},
	{"top-level array", `[{"id":7,"result":{}}]`},
	{"top-level number", `-0.5e+10`},
	{"top-level string", `"x"`},
	{"empty object", `{}`},
	{"deep nesting", answerFrame(`{"structuredContent":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}`)},
	{"too deep", answerFrame(`{"structuredContent":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`)},

	// Not JSON.
	{"empty", ``},
	{"white space only", " \t"},
	{"truncated", `{"id":7,"result":`},
	{"trailing garbage", answerFrame(`{}`) + `x`},
	{"two values", answerFrame(`{}`) + answerFrame(`{}`)},
	{"trailing comma", `{"id":7,"result":{},}`},
	{"trailing comma in array", answerFrame(`{"content":[{"type":"text","text":"x"},]}`)},
	{"control character in string", textBlock("\"a\tb\"")},
	{"newline in key", "{\"i\nd\":7}"},
	{"bad escape", textBlock(`"\x"`)},
	{"single quote escape", textBlock(`"\'"`)},
	{"short unicode escape", textBlock(`"\u12"`)},
	{"bad hex", textBlock(`"\u12G4"`)},
	{"unterminated string", `{"id":7,"result":{"content":[{"type":"text","text":"abc`},
	{"leading zero", answerFrame(`{"n":01}`)},
	{"bare minus", answerFrame(`{"n":-}`)},
	{"dot without digits", answerFrame(`{"n":1.}`)},
	{"exponent without digits", answerFrame(`{"n":1e+}`)},
	{"plus sign", answerFrame(`{"n":+1}`)},
	{"bad literal", answerFrame(`{"n":tru}`)},
	{"literal with suffix", answerFrame(`{"n":nulll}`)},
	{"missing colon", `{"id" 7}`},
	{"missing value", `{"id":}`},
	{"unquoted key", `{id:7}`},
	{"garbage after mismatch", `{"jsonrpc":5,"id":7,"result":x}`},
	{"garbage", `this is not JSON`},
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, tt := range oddFrames {
		t.Run(tt.name, func(t *testing.T) { compareDecoders(t, []byte(tt.line)) })
	}
}

// TestDecodeCall pins what the client makes of some of the frames, beyond
// agreeing with encoding/json.
func TestDecodeCall(t *testing.T) {
	tests := []struct {
		line       string
		kind       messageKind
		text       string // Result.Text()
		structured string // "<nil>" when nil
		isError    bool
		blocks     string // type:unsupported of each block
		err        string // part of the result's error
	}{
		{line: textBlock(`"a\"b\\c\/d\be\ff\ng\rh\ti"`), kind: kindResponse, text: "a\"b\\c/d\be\ff\ng\rh\ti", structured: "<nil>", blocks: "text:false"},
		{line: textBlock(`"\u2028\ud83d\ude00\ud83d"`), kind: kindResponse, text: "\u2028😀\uFFFD", structured: "<nil>", blocks: "text:false"},
		{line: textBlock("\"a\xffb\""), kind: kindResponse, text: "a\uFFFDb", structured: "<nil>", blocks: "text:false"},
		{line: answerFrame(`{"content":[],"structuredContent":null}`), kind: kindResponse, structured: "null"},
		{line: answerFrame(`{"content":[{"type":"text","text":"boom"}],"isError":true}`), kind: kindResponse, text: "boom", structured: "<nil>", isError: true, blocks: "text:false"},
		{line: answerFrame(`{"structuredContent": {"a" : 1} }`), kind: kindResponse, structured: `{"a" : 1}`},
		{line: answerFrame(`{"content":[{"type":"image","data":"AA"},null,{"type":"text","text":1},{"TYPE":"text","TEXT":"x"}]}`), kind: kindResponse, text: "x", structured: "<nil>", blocks: "image:true :true text:true text:false"},
		{line: answerFrame(`{"content":{}}`), kind: kindResponse, err: "malformed tools/call result: json: cannot unmarshal object"},
		{line: answerFrame(`{"resultType":"input_required"}`), kind: kindResponse, err: `unsupported tools/call result type "input_required"`},
		{line: `{"id":7,"error":"bad"}`, kind: kindMalformed},
		{line: `{"id":7,"result":x}`, kind: kindNotJSON},
	}
	for _, tt := range tests {
		_, kind, res, err := decodeCall([]byte(tt.line))
		if kind != tt.kind {
			t.Errorf("%.80s: kind %d; want %d", tt.line, kind, tt.kind)
			continue
		}
		if tt.err != "" || err != nil {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%.80s: error %v; want %q", tt.line, err, tt.err)
			}
			continue
		}
		if res == nil {
			continue
		}
		var blocks []string
		for _, c := range res.Content {
			blocks = append(blocks, fmt.Sprintf("%s:%v", c.Type, c.Unsupported))
		}
		structured := "<nil>"
		if res.StructuredContent != nil {
			structured = string(res.StructuredContent)
		}
		if res.Text() != tt.text || structured != tt.structured || res.IsError != tt.isError || strings.Join(blocks, " ") != tt.blocks {
			t.Errorf("%.80s: text %q structured %s isError %v blocks %q; want %q %s %v %q",
				tt.line, res.Text(), structured, res.IsError, blocks, tt.text, tt.structured, tt.isError, tt.blocks)
		}
	}
}

// FuzzDecodeMessage decodes frames with the decoder and with encoding/json
// and fails on any difference in what the client would make of them.
func FuzzDecodeMessage(f *testing.F) {
	for _, tt := range oddFrames {
		if len(tt.line) < 1000 {
			f.Add([]byte(tt.line))
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		compareDecoders(t, line)
		d := jsonscan.NewScanner(line)
		if got, want := d.Skip() && d.End(), json.Valid(line); got != want {
			t.Fatalf("decoder accepts %q: %v; json.Valid: %v", line, got, want)
		}
	})
}
