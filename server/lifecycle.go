package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// lifecycle is what a server runs besides calls: warm-up work that
// readiness waits for, the calls in flight, which a drain lets finish or
// cancels, and what Close releases. Its zero value is ready.
type lifecycle struct {
	mu       sync.Mutex
	ctx      context.Context // canceled by Close; made on first use
	cancel   context.CancelFunc
	warming  map[string]int // names of warm-ups still running, with counts
	closers  []func() error
	wg       sync.WaitGroup
	closed   bool
	draining bool
	calls    map[*Request]context.CancelCauseFunc // in flight
	idle     chan struct{}                        // closed when draining and no call is in flight
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
	if l.draining {
		return fmt.Errorf("%w: draining", ErrNotReady)
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

// ErrDraining is the cause of the context of a call that was still
// running when a drain's bound passed.
var ErrDraining = errors.New("the server is shutting down")

// Drain prepares the server to stop: it reports not ready, refuses new
// calls as transient (another replica will take them), and waits for the
// calls in flight until ctx ends. Then it cancels those still running,
// with cause [ErrDraining], so that each ends with a transient error its
// client can retry elsewhere, and waits for them to return. It returns
// how many calls it had to cancel.
func (s *Server) Drain(ctx context.Context) int {
	l := &s.life
	l.mu.Lock()
	if !l.draining {
		l.draining = true
		l.idle = make(chan struct{})
		if len(l.calls) == 0 {
			close(l.idle)
		}
	}
	idle := l.idle
	l.mu.Unlock()
	select {
	case <-idle:
		return 0
	case <-ctx.Done():
	}
	l.mu.Lock()
	n := len(l.calls)
	for _, cancel := range l.calls {
		cancel(ErrDraining)
	}
	l.mu.Unlock()
	<-idle // a cancelled call still returns its result
	return n
}

// track counts the calls in flight for Drain, refuses calls while
// draining, and says why a call cancelled by Drain failed.
func (s *Server) track(next Handler) Handler {
	return func(ctx context.Context, req *Request) *Result {
		l := &s.life
		l.mu.Lock()
		if l.draining {
			l.mu.Unlock()
			res := errorResult(&Error{Class: Transient, RetryAfter: time.Second, Message: ErrDraining.Error(),
				Hint: "retry: another replica, or this one once restarted, will answer"})
			res.Refusal = RefusedDraining
			return res
		}
		ctx, cancel := context.WithCancelCause(ctx)
		if l.calls == nil {
			l.calls = make(map[*Request]context.CancelCauseFunc)
		}
		l.calls[req] = cancel
		l.mu.Unlock()
		defer func() {
			cancel(nil)
			l.mu.Lock()
			delete(l.calls, req)
			if l.draining && len(l.calls) == 0 {
				close(l.idle)
			}
			l.mu.Unlock()
		}()
		res := next(ctx, req)
		if res.Err != nil && res.Err.Class == Transient && errors.Is(context.Cause(ctx), ErrDraining) {
			res = errorResult(&Error{Class: Transient, RetryAfter: time.Second,
				Message: "the call was cancelled: " + ErrDraining.Error(),
				Hint:    "retry: another replica, or this one once restarted, will answer"})
		}
		return res
	}
}
