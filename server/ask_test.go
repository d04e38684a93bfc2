package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

type confirmIn struct {
	Digest string `json:"digest"`
}

type confirmOut struct {
	Confirmed bool   `json:"confirmed"`
	Note      string `json:"note"`
}

// confirm asks the person to confirm a digest, and says what they answered.
func confirm(_ context.Context, req *server.Request, in confirmIn) (confirmOut, error) {
	if a, ok := req.Answer("confirm"); ok {
		if req.State() != "asked about "+in.Digest {
			return confirmOut{}, server.Errorf(server.Internal, "lost state %q", req.State())
		}
		return confirmOut{Confirmed: a.Accepted(), Note: a.Action}, nil
	}
	if !req.CanAsk() {
		return confirmOut{Note: "cannot ask"}, nil
	}
	return confirmOut{}, server.Ask("asked about "+in.Digest, map[string]server.Question{
		"confirm": {Message: "Apply the change with digest " + in.Digest + "?"},
	})
}

func TestAsk(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		for _, action := range []string{"accept", "decline"} {
			t.Run(version+" "+action, func(t *testing.T) {
				var asked atomic.Int32
				s := server.New(server.Info{Name: "t"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
				server.MustRegister(s, server.Tool{Name: "confirm", Description: "Asks.", Effect: server.Destructive}, confirm)
				c := servertest.Start(t, s, servertest.Options{ProtocolVersion: version, Answer: func(message string) (string, map[string]any) {
					asked.Add(1)
					if !strings.Contains(message, "abc123") {
						t.Errorf("question %q does not name the digest", message)
					}
					return action, nil
				}})
				res := c.Call("confirm", map[string]any{"digest": "abc123"})
				var out confirmOut
				json.Unmarshal(res.Structured, &out)
				if res.IsError || out.Confirmed != (action == "accept") || out.Note != action || asked.Load() != 1 {
					t.Errorf("got %+v (%s), asked %d times", out, res.Text, asked.Load())
				}
			})
		}
	}
	t.Run("client that cannot be asked", func(t *testing.T) {
		s := server.New(server.Info{Name: "t"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
		server.MustRegister(s, server.Tool{Name: "confirm", Description: "Asks.", Effect: server.Destructive}, confirm)
		res := servertest.Start(t, s).Call("confirm", map[string]any{"digest": "abc123"})
		if !strings.Contains(string(res.Structured), "cannot ask") {
			t.Errorf("got %s", res.Text)
		}
	})
}

func TestIsAsk(t *testing.T) {
	ask := server.Ask("s", map[string]server.Question{"ok": {Message: "Sure?"}})
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{ask, true},
		{fmt.Errorf("wrapped: %w", ask), true},
		{server.Errorf(server.NotFound, "no"), false},
		{nil, false},
	} {
		if got := server.IsAsk(tc.err); got != tc.want {
			t.Errorf("IsAsk(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
