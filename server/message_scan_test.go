package server

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// envelopeFrames are frames of every kind checkFrame meets; scanned marks
// those scanEnvelope reads itself rather than leaving to decodeEnvelope.
var envelopeFrames = []struct {
	line    string
	scanned bool
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
}

// TestScanEnvelope checks that scanEnvelope reads the usual frames, and
// reads each as encoding/json decodes it.
func TestScanEnvelope(t *testing.T) {
	for _, tc := range envelopeFrames {
		if _, ok := scanEnvelope([]byte(tc.line)); ok != tc.scanned {
			t.Errorf("%s: scanned = %v, want %v", tc.line, ok, tc.scanned)
		}
		scansAsDecoded(t, []byte(tc.line))
	}
}

// FuzzScanEnvelope: whatever the frame, scanEnvelope reads it as
// encoding/json decodes it, or leaves it to decodeEnvelope.
func FuzzScanEnvelope(f *testing.F) {
	for _, tc := range envelopeFrames {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(scansAsDecoded)
}

func scansAsDecoded(t *testing.T, line []byte) {
	env, ok := scanEnvelope(line)
	if !ok {
		return
	}
	want, bad := decodeEnvelope(line)
	if bad != nil || !reflect.DeepEqual(env, want) {
		t.Errorf("%q: scanned %#v; decoded %#v, %v", line, env, want, bad)
	}
	if id := validID(env.ID); id != nil {
		got, err := makeID(id)
		var v any
		json.Unmarshal(id, &v)
		if wantID, werr := jsonrpc.MakeID(v); err != nil || werr != nil || got != wantID {
			t.Errorf("%q: id %v, %v; decoded %v, %v", line, got, err, wantID, werr)
		}
	}
}
