package server_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

// TestDrain checks a graceful stop: a call that finishes within the
// drain's bound returns its result, one that does not is cancelled and
// answered transient, saying why, and a call that arrives while draining
// is refused transient; the server reports not ready from the start.
func TestDrain(t *testing.T) {
	started := make(chan string, 2)
	finish := make(chan struct{})
	s := server.New(server.Info{Name: "t"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	server.MustRegister(s, server.Tool{Name: "quick", Description: "Returns when told.", Effect: server.ReadOnly},
		func(ctx context.Context, _ *server.Request, _ empty) (empty, error) {
			started <- "quick"
			<-finish
			return empty{}, nil
		})
	server.MustRegister(s, server.Tool{Name: "stuck", Description: "Waits until cancelled.", Effect: server.ReadOnly, Timeout: time.Hour},
		func(ctx context.Context, _ *server.Request, _ empty) (empty, error) {
			started <- "stuck"
			<-ctx.Done()
			return empty{}, ctx.Err()
		})
	c := servertest.Start(t, s)
	results := make(chan *servertest.Result, 2)
	for _, name := range []string{"quick", "stuck"} {
		go func() { results <- c.Call(name, map[string]any{}) }()
	}
	<-started
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	drained := make(chan int)
	go func() { drained <- s.Drain(ctx) }()
	for !errors.Is(s.Ready(), server.ErrNotReady) {
		time.Sleep(time.Millisecond)
	}
	if res := c.Call("quick", map[string]any{}); res.ErrorClass() != "transient" || !strings.Contains(res.Text, "shutting down") {
		t.Errorf("a call while draining: %s %q, want transient, shutting down", res.ErrorClass(), res.Text)
	}
	close(finish) // quick finishes within the bound
	if res := <-results; res.IsError {
		t.Errorf("the call that finished within the bound: %q", res.Text)
	}
	cancel() // the bound passes
	if n := <-drained; n != 1 {
		t.Errorf("Drain cancelled %d calls, want 1", n)
	}
	if res := <-results; res.ErrorClass() != "transient" || !strings.Contains(res.Text, "cancelled: the server is shutting down") {
		t.Errorf("the call still running at the bound: %s %q", res.ErrorClass(), res.Text)
	}
}
