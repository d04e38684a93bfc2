package server_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
)

// TestLifecycle checks that warm-up work holds readiness until it ends
// (failed or not), that Close cancels what still runs, and that Close
// runs what OnClose added, last first, once.
func TestLifecycle(t *testing.T) {
	s := server.New(server.Info{Name: "t"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	if err := s.Ready(); err != nil {
		t.Fatalf("Ready with no warm-up: %v", err)
	}
	release := make(chan struct{})
	s.Warm("index", func(ctx context.Context) error {
		<-release
		return errors.New("failed, as warm-ups may")
	})
	blocked := make(chan error, 1)
	s.Warm("forever", func(ctx context.Context) error {
		<-ctx.Done()
		blocked <- ctx.Err()
		return ctx.Err()
	})
	if err := s.Ready(); !errors.Is(err, server.ErrNotReady) || !strings.Contains(err.Error(), "forever, index") {
		t.Fatalf("Ready while warming: %v", err)
	}
	close(release)
	for s.Ready() != nil && strings.Contains(s.Ready().Error(), "index") {
		time.Sleep(time.Millisecond) // the first warm-up ends, failed: readiness stops waiting for it
	}
	var order []string
	s.OnClose(func() error { order = append(order, "first"); return nil })
	s.OnClose(func() error { order = append(order, "second"); return errors.New("second failed") })
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "second failed") {
		t.Errorf("Close: %v, want the closer's error", err)
	}
	if err := <-blocked; !errors.Is(err, context.Canceled) {
		t.Errorf("a warm-up running at Close saw %v, want canceled", err)
	}
	if !slices.Equal(order, []string{"second", "first"}) {
		t.Errorf("closers ran in order %v, want last added first", order)
	}
	if err := s.Close(); err != nil || len(order) != 2 {
		t.Errorf("a second Close: %v, closers ran %d times", err, len(order))
	}
	if err := s.Ready(); !errors.Is(err, server.ErrNotReady) {
		t.Errorf("Ready after Close: %v", err)
	}
}
