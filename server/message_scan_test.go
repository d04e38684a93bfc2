package server

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// envelopeFrames are frames of every kind checkFrame meets: each is read
// by scanEnvelope or left to encoding/json, and either way checkFrame must
// answer as it did with encoding/json alone.
var envelopeFrames = []struct {
	line    string
	scanned bool // scanEnvelope reads it itself
}{
	{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"read_file","arguments":{"path":"a"}}}`, true},
	{` { "jsonrpc" : "2.0" , "id" : "a\u00e9\"b" , "method" : "ping" } `, true},
	{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
	{`{"jsonrpc":"2.0","id":-0,"method":"ping","x":[1,{"id":2}]}`, true},
	{`{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, true},
	{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, true},
	{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, true},
	{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, true},
	{`{"jsonrpc":"2.0","id":1,"method":null}`, true},
	{`{"jsonrpc":null,"id":1,"method":"ping"}`, true},
	{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, true},
	{`{"jsonrpc":"2.0","id":1,"method":5}`, true},
	{`{"jsonrpc":"2.0","id":1,"method":"a\ud800b"}`, true},
	{`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`, true},
	{`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, true},
	{`{"jsonrpc":"2.0","id":1}`, true},
	{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":{},"error":null}`, false},
	{`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`, false},
	{`{"JSONRPC":"2.0","Id":1,"Method":"ping"}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"ping","ſd":2}`, false},
	{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, false},
	{`{"jsonrpc":5,"id":1,"method":"ping"}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"ping"} x`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"ping"`, false},
	{`"x"`, false},
	{`5`, false},
	{``, false},
	{`[]`, false},
}

// TestScanEnvelope checks that checkFrame answers every frame as it did
// when it decoded each with encoding/json, and that the usual frames are
// read by the scan.
func TestScanEnvelope(t *testing.T) {
	for _, tc := range envelopeFrames {
		if _, ok := scanEnvelope([]byte(tc.line)); ok != tc.scanned {
			t.Errorf("%s: scanned = %v, want %v", tc.line, ok, tc.scanned)
		}
		sameAsDecoded(t, []byte(tc.line))
	}
}

// FuzzScanEnvelope: whatever the frame, checkFrame answers as it did with
// encoding/json alone.
func FuzzScanEnvelope(f *testing.F) {
	for _, tc := range envelopeFrames {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(sameAsDecoded)
}

func sameAsDecoded(t *testing.T, line []byte) {
	msg, bad := checkFrame(line)
	wantMsg, wantBad := checkFrameDecoded(line)
	if !reflect.DeepEqual(msg, wantMsg) || !reflect.DeepEqual(bad, wantBad) {
		t.Errorf("%q: checkFrame = %#v, %#v; with encoding/json %#v, %#v", line, msg, bad, wantMsg, wantBad)
	}
}

// checkFrameDecoded is checkFrame as it was before scanEnvelope: every
// frame decoded with encoding/json.
func checkFrameDecoded(line []byte) (jsonrpc.Message, *badFrame) {
	if len(line) > 0 && line[0] == '[' {
		return nil, &badFrame{nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not accepted here; send one message at a time", nil}
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		if _, ok := errors.AsType[*json.SyntaxError](err); ok || len(line) == 0 {
			return nil, &badFrame{nil, jsonrpc.CodeParseError, "parse error: the message is not JSON", nil}
		}
		return nil, &badFrame{validID(env.ID), jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC message object", nil}
	}
	id := validID(env.ID)
	switch {
	case env.JSONRPC != "2.0":
		return nil, &badFrame{id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, nil}
	case env.ID != nil && id == nil:
		return nil, &badFrame{numberID(env.ID), jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or an integer of at most 53 bits", nil}
	}
	var rpcID jsonrpc.ID
	if id != nil {
		var v any
		if err := json.Unmarshal(id, &v); err != nil {
			return nil, &badFrame{nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), nil}
		}
		var err error
		if rpcID, err = jsonrpc.MakeID(v); err != nil {
			return nil, &badFrame{nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), nil}
		}
	}
	if env.Method == nil {
		if !rpcID.IsValid() || (env.Result == nil) == (env.Error == nil) {
			return nil, &badFrame{id, jsonrpc.CodeInvalidRequest, "invalid request: neither a request (method) nor a response (id and result or error)", nil}
		}
		resp := &jsonrpc.Response{ID: rpcID, Result: env.Result}
		if env.Error != nil {
			resp.Error = env.Error
		}
		return resp, nil
	}
	var method string
	if err := json.Unmarshal(env.Method, &method); err != nil {
		return nil, &badFrame{id, jsonrpc.CodeInvalidRequest, "invalid request: method must be a string", nil}
	}
	return &jsonrpc.Request{ID: rpcID, Method: method, Params: env.Params}, nil
}
