package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
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

// TestAnswerID checks that every call presenting one requestState has the
// same AnswerID, and that each question asked has its own.
func TestAnswerID(t *testing.T) {
	s := newTestServer(server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	server.MustRegister(s, server.Tool{Name: "confirm_once", Description: "Asks.", Effect: server.Destructive},
		func(_ context.Context, req *server.Request, in confirmIn) (confirmOut, error) {
			if a, ok := req.Answer("confirm"); ok {
				return confirmOut{Confirmed: a.Accepted(), Note: req.AnswerID()}, nil
			}
			return confirmOut{}, server.Ask("", map[string]server.Question{"confirm": {Message: "Sure?"}})
		})
	ts := httptest.NewServer(s.HTTPHandler(server.HTTPOptions{}))
	defer ts.Close()
	ask := func() string {
		_, _, body := postCall(t, ts.URL, "", "confirm_once", mcphttp.Call(1, "confirm_once", `{"digest":"abc"}`, ""))
		var res struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(body), &res) != nil || res.Result.RequestState == "" {
			t.Fatalf("no question: %s", body)
		}
		return res.Result.RequestState
	}
	answer := func(state, action string) string {
		extra := fmt.Sprintf(`"inputResponses":{"confirm":{"action":%q}},"requestState":%q`, action, state)
		_, _, body := postCall(t, ts.URL, "", "confirm_once", mcphttp.Call(2, "confirm_once", `{"digest":"abc"}`, extra))
		var res struct {
			Result struct {
				StructuredContent confirmOut `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(body), &res) != nil || res.Result.StructuredContent.Note == "" {
			t.Fatalf("no answer id: %s", body)
		}
		return res.Result.StructuredContent.Note
	}
	first := ask()
	declined, accepted := answer(first, "decline"), answer(first, "accept")
	if declined != accepted {
		t.Errorf("one question, two answer ids: %q and %q", declined, accepted)
	}
	if other := answer(ask(), "accept"); other == declined {
		t.Errorf("two questions share the answer id %q", other)
	}
}
