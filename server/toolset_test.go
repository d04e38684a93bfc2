package server_test

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

// TestToolsets checks that a server registers only the families it
// serves, and offers each caller only the tools Visible lets it see: a
// hidden tool is missing from tools/list and called, it is the unknown
// tool it would be if it were not registered.
func TestToolsets(t *testing.T) {
	onlyReaders := func(caller string, tool server.Tool) bool { return tool.Action != "write" || caller == "writer" }
	tests := []struct {
		name      string
		families  []string
		visible   func(string, server.Tool) bool
		caller    string
		wantTools []string
	}{
		{"every family", nil, nil, "local", []string{"free", "look", "touch"}},
		{"one family", []string{"read"}, nil, "local", []string{"free", "look"}},
		{"no family", []string{}, nil, "local", []string{"free"}},
		{"hidden from a reader", nil, onlyReaders, "reader", []string{"free", "look"}},
		{"shown to a writer", nil, onlyReaders, "writer", []string{"free", "look", "touch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := server.New(server.Info{Name: "t"}, server.Options{
				Caller: tt.caller, Families: tt.families, Visible: tt.visible,
				Logger: slog.New(slog.DiscardHandler), Audit: io.Discard,
			})
			server.MustRegister(s, server.Tool{Name: "free", Description: "In no family.", Effect: server.ReadOnly}, echo)
			server.MustRegister(s, server.Tool{Name: "look", Description: "Reads.", Effect: server.ReadOnly, Family: "read", Action: "read"}, echo)
			server.MustRegister(s, server.Tool{Name: "touch", Description: "Writes.", Effect: server.Write, Family: "write", Action: "write"}, echo)
			c := servertest.Start(t, s)
			if diff := cmp.Diff(tt.wantTools, c.ToolNames()); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			for _, name := range []string{"look", "touch", "absent"} {
				_, err := c.CallErr(name, map[string]any{"text": "x"})
				listed := strings.Contains(strings.Join(tt.wantTools, " "), name)
				switch {
				case listed && err != nil:
					t.Errorf("call %s: %v, want a result", name, err)
				case !listed && (err == nil || !strings.Contains(err.Error(), `unknown tool "`+name+`"`)):
					t.Errorf("call %s: %v, want unknown tool", name, err)
				}
			}
		})
	}
}
