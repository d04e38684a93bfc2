package server_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

type countIn struct {
	N int `json:"n"`
}

// countOut encodes itself as encoding/json would, but with its numbers
// spelled with a leading "+" sign in Spelled, so that a test can tell
// which encoder made the structured result.
type countOut struct {
	Spelled string `json:"spelled,omitempty"`
}

func (o countOut) AppendJSON(b []byte) []byte {
	if o.Spelled == "" {
		return append(b, "{}"...)
	}
	b = append(b, `{"spelled":`...)
	return append(strconv.AppendQuote(b, "+"+o.Spelled), '}')
}

// TestJSONAppenderEncodesStructured checks that an output implementing
// server.JSONAppender is encoded by it, the request_id leading, for an
// output with members and one without.
func TestJSONAppenderEncodesStructured(t *testing.T) {
	s := server.New(server.Info{Name: "count", Version: "v0"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	server.MustRegister(s, server.Tool{Name: "count", Description: "Spells a number.", Effect: server.ReadOnly},
		func(_ context.Context, _ *server.Request, in countIn) (countOut, error) {
			if in.N == 0 {
				return countOut{}, nil
			}
			return countOut{Spelled: strconv.Itoa(in.N)}, nil
		})
	c := servertest.Start(t, s)
	for _, tc := range []struct {
		n    int
		want string
	}{
		{7, `{"request_id":"r-1","spelled":"+7"}`},
		{0, `{"request_id":"r-1"}`},
	} {
		res := c.Call("count", map[string]any{"n": tc.n, "request_id": "r-1"})
		if res.IsError || string(res.Structured) != tc.want {
			t.Errorf("n=%d: structured %s (error %v), want %s", tc.n, res.Structured, res.IsError, tc.want)
		}
	}
}
