package source

import (
	"encoding/json"
	"testing"
)

func TestServerRequestID(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{`{"content":[],"_meta":{"io.github.repo-mcp/request_id":"r1.c1.1"}}`, "r1.c1.1"},
		{`{"_meta":{"io.github.repo-mcp/request_id":"first"},"content":[{"type":"text","text":"_meta"}]}`, "first"},
		{`{"_meta":{"io.github.repo-mcp/request_id":"a"},"_meta":{"io.github.repo-mcp/request_id":"b"}}`, "b"},
		{`{"content":[{"type":"text","text":"{\"_meta\":{\"io.github.repo-mcp/request_id\":\"inner\"}}"}]}`, ""},
		{`{"structuredContent":{"_meta":{"io.github.repo-mcp/request_id":"nested"}}}`, ""},
		{`{"_meta":{"other":"x"}}`, ""},
		{`{"_meta":{"io.github.repo-mcp/request_id":7}}`, ""},
		{`{"_meta":null}`, ""},
		{`[]`, ""},
	}
	for _, tt := range tests {
		if got := ServerRequestID(json.RawMessage(tt.raw)); got != tt.want {
			t.Errorf("ServerRequestID(%s) = %q; want %q", tt.raw, got, tt.want)
		}
	}
}
