package server

import (
	"encoding/json"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/schemacheck"
)

// TestCanonicalIsJSONMarshal: the digest's canonical form of parsed
// arguments is the bytes json.Marshal writes for them, request_id left out
// of the outermost object only.
func TestCanonicalIsJSONMarshal(t *testing.T) {
	for _, args := range canonicalSeeds {
		v, err := schemacheck.Parse([]byte(args))
		if err != nil {
			t.Fatalf("seed %q does not parse: %v", args, err)
		}
		canonicalAgrees(t, args, v)
	}
}

func FuzzCanonicalIsJSONMarshal(f *testing.F) {
	for _, args := range canonicalSeeds {
		f.Add([]byte(args))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		if v, err := schemacheck.Parse(args); err == nil {
			canonicalAgrees(t, string(args), v)
		}
	})
}

var canonicalSeeds = []string{
	`{"workspace_id":"go","path":"src/net/http/server.go","max_bytes":1048576}`,
	`{"request_id":"r-1","b":true,"a":null,"c":[1,2.50,-0,1e400,"x"],"d":{"request_id":"kept","z":{}}}`,
	`{"html":"<a href='x'>&amp;</a>","ctl":"\u0000\t\n\u001f","lone":"\ud800","ls":"\u2028\u2029","esc":"\"\\/"}`,
	"{\"bad\":\"\xff\xfe\",\"\xc3\":1}",
	`{"é":"ü","ß":[[],[[]],{}],"n":-12.5E-3}`,
	`[1,"request_id",{"request_id":1}]`,
	`"only a string"`,
	`17`,
}

func canonicalAgrees(t *testing.T, args string, v any) {
	want, err := json.Marshal(withoutRequestID(v))
	got, ok := appendCanonical(nil, v, requestIDField)
	if !ok || err != nil || string(got) != string(want) {
		t.Errorf("arguments %q: canonical %q (%v), json.Marshal %q (%v)", args, got, ok, want, err)
	}
}
