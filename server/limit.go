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
	// bodies counts, by caller, the requests among n whose bodies are
	// still arriving (over HTTP).
	bodies map[string]int
}

func newCallerLimit(max int) *callerLimit {
	if max <= 0 {
		return nil
	}
	return &callerLimit{max: max, n: make(map[string]int), bodies: make(map[string]int)}
}

// acquireBody counts a request of caller whose body is arriving. When
// caller has max calls in progress already, it reports whether some of
// them are bodies still arriving: a caller that trickles bodies.
func (l *callerLimit) acquireBody(caller string) (ok, trickling bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[caller] >= l.max {
		return false, l.bodies[caller] > 0
	}
	l.n[caller]++
	l.bodies[caller]++
	return true, false
}

// releaseBody ends what acquireBody counted.
func (l *callerLimit) releaseBody(caller string) {
	l.mu.Lock()
	if l.bodies[caller]--; l.bodies[caller] == 0 {
		delete(l.bodies, caller)
	}
	l.mu.Unlock()
	l.release(caller)
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
			res := errorResult(&Error{Class: Transient, RetryAfter: time.Second,
				Message: "too many calls in progress for this caller",
				Hint:    "wait for a call to finish, then retry"})
			res.Refusal = RefusedLimit
			return res
		}
		defer l.release(req.Caller)
		return next(ctx, req)
	}
}
