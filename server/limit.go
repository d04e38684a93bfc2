package server

import (
	"context"
	"sync"
	"time"
)

// callerLimit bounds the calls one caller has in progress, so that one
// runaway agent cannot take a shared server from the others.
type callerLimit struct {
	max int
	mu  sync.Mutex
	n   map[string]int // calls in progress, by caller; absent when none
}

func newCallerLimit(max int) *callerLimit {
	if max <= 0 {
		return nil
	}
	return &callerLimit{max: max, n: make(map[string]int)}
}

// acquire counts a call for caller, or reports that it has max already.
func (l *callerLimit) acquire(caller string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[caller] >= l.max {
		return false
	}
	l.n[caller]++
	return true
}

func (l *callerLimit) release(caller string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[caller]--; l.n[caller] == 0 {
		delete(l.n, caller)
	}
}

// limitCallers refuses a call, as transient, while its caller has
// Options.MaxCallsPerCaller calls in progress.
func (s *Server) limitCallers(next Handler) Handler {
	l := s.callers // one count for all the tools
	if l == nil {
		return next
	}
	return func(ctx context.Context, req *Request) *Result {
		if !l.acquire(req.Caller) {
			return errorResult(&Error{Class: Transient, RetryAfter: time.Second,
				Message: "too many calls in progress for this caller",
				Hint:    "wait for a call to finish, then retry"})
		}
		defer l.release(req.Caller)
		return next(ctx, req)
	}
}
