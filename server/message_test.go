package server

import (
	"strings"
	"testing"
)

func TestLeadingID(t *testing.T) {
	long := strings.Repeat("x", maxIDBytes)
	tests := []struct {
		prefix, want string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"text":"`, `7`},
		{`{"id" : -9007199254740991, "params":`, `-9007199254740991`},
		{`{"id":1234567890123456789,"params":`, ``},
		{`{"id":"a\"b","params":`, `"a\"b"`},
		{`{"id":"` + long[:maxIDBytes-2] + `","params":`, `"` + long[:maxIDBytes-2] + `"`},
		{`{"id":"` + long + `","params":`, ``},
		{`{"method":"x","params":{"id":3}`, ``},
		{`{"id":"unterminated`, ``},
	}
	for _, tt := range tests {
		if got := string(leadingID([]byte(tt.prefix))); got != tt.want {
			t.Errorf("leadingID(%.60q) = %.60q, want %.60q", tt.prefix, got, tt.want)
		}
	}
}
