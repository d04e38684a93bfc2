package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// lifecycle is what a server runs besides calls: warm-up work that
// readiness waits for, and what Close releases. Its zero value is ready.
type lifecycle struct {
	mu      sync.Mutex
	ctx     context.Context // canceled by Close; made on first use
	cancel  context.CancelFunc
	warming map[string]int // names of warm-ups still running, with counts
	closers []func() error
	wg      sync.WaitGroup
	closed  bool
}

// context returns the lifetime context, making it on first use.
func (l *lifecycle) context() context.Context {
	if l.ctx == nil {
		l.ctx, l.cancel = context.WithCancel(context.Background())
	}
	return l.ctx
}

// Warm runs f in the background with a context that [Server.Close]
// cancels. Until f returns, [Server.Ready] reports the server not ready,
// naming the work: a load balancer then sends calls to replicas whose
// indexes are built. An error from f is logged; the server is ready
// anyway, since every tool still answers (more slowly).
func (s *Server) Warm(name string, f func(ctx context.Context) error) {
	l := &s.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.warming == nil {
		l.warming = make(map[string]int)
	}
	l.warming[name]++
	ctx := l.context()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if err := f(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("warm-up failed", "work", name, "error", err)
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.warming[name]--; l.warming[name] == 0 {
			delete(l.warming, name)
		}
	}()
}

// ErrNotReady is wrapped by [Server.Ready]'s error while warm-up work runs.
var ErrNotReady = errors.New("not ready")

// Ready returns nil once every [Server.Warm] work has ended, and an error
// wrapping [ErrNotReady] naming what still runs otherwise.
func (s *Server) Ready() error {
	l := &s.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("%w: closed", ErrNotReady)
	}
	if len(l.warming) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(l.warming))
	return fmt.Errorf("%w: warming %s", ErrNotReady, strings.Join(names, ", "))
}

// OnClose adds f to what [Server.Close] runs. Tool families register
// what they hold (index files, readers) this way.
func (s *Server) OnClose(f func() error) {
	l := &s.life
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closers = append(l.closers, f)
}

// Close cancels warm-up work, waits for it, then runs what [Server.OnClose]
// added, last added first, and returns their errors joined. It does not
// wait for calls in progress: stop serving first. Close is idempotent.
func (s *Server) Close() error {
	l := &s.life
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	if l.cancel != nil {
		l.cancel()
	}
	closers := l.closers
	l.closers = nil
	l.mu.Unlock()
	l.wg.Wait()
	var errs []error
	for _, f := range slices.Backward(closers) {
		errs = append(errs, f())
	}
	return errors.Join(errs...)
}
