package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

type fuzzIn struct {
	Path  string   `json:"path" jsonschema:"maxLength=64"`
	Start int      `json:"start_line,omitempty" jsonschema:"minimum=1"`
	Tags  []string `json:"tags,omitempty"`
	Opts  *struct {
		Deep bool `json:"deep"`
	} `json:"opts,omitempty"`
}

type fuzzOut struct {
	Path string `json:"path"`
}

// FuzzArguments feeds arbitrary argument documents through validation and
// decoding. Whatever the input, the call must end in a result: success or
// invalid_input, never a panic (which would surface as internal), never a
// hang.
func FuzzArguments(f *testing.F) {
	for _, seed := range []string{
		`{"path":"a"}`, `{}`, `[]`, `null`, `{"path":1}`, `{"path":"a","path":"b"}`, `{"Path":"a"}`,
		`{"path":"a","start_line":9223372036854775808}`, `{"path":"a","start_line":1e400}`,
		`{"path":"a","opts":{"deep":true,"Deep":false}}`, `{"path":"a","tags":[[[[[[]]]]]]}`,
		`{"path":"\u0000"}`, `{"path":"a"} {}`, `{"request_id":"x y","path":"a"}`, "",
	} {
		f.Add([]byte(seed))
	}
	s := New(Info{Name: "fuzz"}, Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	MustRegister(s, Tool{Name: "t", Description: "d", Effect: ReadOnly},
		func(_ context.Context, _ *Request, in fuzzIn) (fuzzOut, error) { return fuzzOut{Path: in.Path}, nil })
	r := s.tools["t"]
	f.Fuzz(func(t *testing.T, args []byte) {
		res := r.handle(context.Background(), s.begin(r, args))
		if res == nil {
			t.Fatal("nil result")
		}
		if res.Err == nil {
			if !json.Valid(res.Structured) {
				t.Fatalf("success with invalid structured output %q", res.Structured)
			}
			return
		}
		if res.Err.Class != InvalidInput {
			t.Fatalf("args %q: class %s (%s), want invalid_input", args, res.Err.Class, res.Err.Message)
		}
	})
}

// FuzzFrame feeds arbitrary lines to the frame guard: each is either handed
// on as a message that go-sdk encodes again, or refused with -32700 or
// -32600; never a panic.
func FuzzFrame(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `[]`, `{`, `"x"`, `1`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"io.github.repo-mcp/rpc-id":"9"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}`, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":5}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, bad := checkFrame(line)
		switch {
		case bad != nil:
			if bad.code != jsonrpc.CodeParseError && bad.code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("refused with code %d", bad.code)
			}
			if bad.id != nil && !json.Valid(bad.id) {
				t.Fatalf("refusal echoes an invalid id %q", bad.id)
			}
		case msg == nil:
			t.Fatal("neither a message nor a refusal")
		default:
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("accepted a message go-sdk cannot encode: %v", err)
			}
		}
	})
}

// FuzzLeadingID looks for ids in the first bytes of oversized frames.
func FuzzLeadingID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"x":"`))
	f.Add([]byte(`{"params":{"id":5},"id":"a\"b"`))
	f.Fuzz(func(t *testing.T, prefix []byte) {
		if id := leadingID(prefix); id != nil && validID(id) == nil {
			t.Fatalf("leadingID returned invalid id %q", id)
		}
	})
}
