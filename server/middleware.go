package server

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Handler runs one call. Middleware wraps handlers; the innermost one
// calls the tool's typed function with the decoded arguments.
type Handler func(ctx context.Context, req *Request) *Result

// Middleware wraps a Handler with behaviour shared by every tool.
type Middleware func(next Handler) Handler

// chain is the order every call goes through, outermost first. It is the
// one place to read to know what happens to a call:
//
//	[observe]  the server's observers (Options.Observers): metrics, traces
//	audit      one line per call, whatever happens inside
//	track      the calls in flight, refused while draining and cancelled
//	           at the drain's bound (lifecycle.go)
//	recover    a panic becomes an internal error with a trace id
//	validate   arguments against the input schema, all problems at once,
//	           and the state of a previous round (see Ask); then decode
//	           them into the tool's input type, once
//	authorize  the caller may do this action on this workspace and path
//	limit      the caller's calls in progress (Options.MaxCallsPerCaller)
//	[extra]    the server's own middleware (Options.Middleware)
//	timeout    the tool's deadline
//	bound      the result's byte bound, with explicit truncation
//	call       the tool itself, with the decoded input
func (s *Server) chain(t *registered) Handler {
	h := t.invoke
	h = s.bound(h)
	h = timeout(s.opts.Timeout)(h)
	for i := len(s.opts.Middleware) - 1; i >= 0; i-- {
		h = s.opts.Middleware[i](h)
	}
	h = s.limitCallers(h)
	h = s.authorize(h)
	h = s.validate(h)
	h = s.recoverPanics(h)
	h = s.track(h)
	h = s.audit(h)
	for i := len(s.opts.Observers) - 1; i >= 0; i-- {
		h = s.opts.Observers[i](h)
	}
	return h
}

func (s *Server) recoverPanics(next Handler) Handler {
	return func(ctx context.Context, req *Request) (res *Result) {
		defer func() {
			if v := recover(); v != nil {
				e := &Error{Class: Internal, Message: "the tool failed unexpectedly", TraceID: newID("t-")}
				s.log.Error("tool panicked",
					"request_id", req.ID, "tool", req.Tool, "trace_id", e.TraceID,
					"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				res = errorResult(e)
			}
		}()
		return next(ctx, req)
	}
}

func (s *Server) validate(next Handler) Handler {
	return func(ctx context.Context, req *Request) *Result {
		v, err := req.tool.validator()
		if err != nil {
			return s.failure(req, err)
		}
		if vs := v.Check(req.Arguments, req.parsed, req.parseErr); len(vs) > 0 {
			return errorResult(violationsError(vs))
		}
		if req.roundErr != nil {
			return errorResult(&Error{Class: InvalidInput, Message: req.roundErr.Error(), Hint: "call again without requestState and inputResponses"})
		}
		in, err := req.tool.decode(req.Arguments)
		if err != nil {
			// The schema accepted what the type cannot hold (a number out of
			// range for its Go type, say): still the caller's to fix.
			return errorResult(&Error{Class: InvalidInput, Message: "arguments do not fit the tool's types: " + err.Error()})
		}
		req.input = in
		return next(ctx, req)
	}
}

func (s *Server) authorize(next Handler) Handler {
	if s.opts.Authorize == nil {
		return next
	}
	return func(ctx context.Context, req *Request) *Result {
		if err := s.opts.Authorize(ctx, req); err != nil {
			res := s.failure(req, err)
			res.Refusal = RefusedAuth
			return res
		}
		return next(ctx, req)
	}
}

func timeout(def time.Duration) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, req *Request) *Result {
			d := req.tool.def.Timeout
			if d == 0 {
				d = def
			}
			if d <= 0 {
				return next(ctx, req)
			}
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return next(ctx, req)
		}
	}
}

// bound enforces the result byte bound. Text beyond it is cut with a
// visible note; a structured output beyond it cannot be cut without
// breaking its schema, so the call fails with a hint to ask for less.
func (s *Server) bound(next Handler) Handler {
	return func(ctx context.Context, req *Request) *Result {
		res := next(ctx, req)
		limit := req.tool.def.MaxResultBytes
		if limit == 0 {
			limit = s.opts.MaxResultBytes
		}
		if res.size() <= limit {
			return res
		}
		if len(res.Structured) > limit*3/4 {
			return errorResult(&Error{
				Class:   InvalidInput,
				Message: fmt.Sprintf("the result would be %d bytes, over this tool's bound of %d", res.size(), limit),
				Hint:    "ask for less: a smaller range, limit or path",
			})
		}
		res.Text = truncateText(res.FullText(), limit-len(res.Structured))
		res.Truncated = true
		return res
	}
}

// failure turns any error from a handler or hook into a result. A
// *Error keeps its class; anything else is internal, logged with a trace id
// and reported without its text.
func (s *Server) failure(req *Request, err error) *Result {
	if a, ok := errors.AsType[*askError](err); ok {
		if !req.CanAsk() {
			return errorResult(&Error{Class: PreconditionFailed, Message: "the tool needs to ask the person behind the client, and this client cannot be asked"})
		}
		return &Result{ask: a}
	}
	var e *Error
	if errors.As(err, &e) && e.Class.Valid() {
		if e.Class == Internal {
			c := *e
			if c.TraceID == "" {
				c.TraceID = newID("t-")
			}
			s.log.Error("tool failed", "request_id", req.ID, "tool", req.Tool, "trace_id", c.TraceID, "error", err.Error())
			e = &c
		} else if e.Err != nil {
			s.log.Debug("tool error cause", "request_id", req.ID, "tool", req.Tool, "class", string(e.Class), "error", e.Err.Error())
		}
		return errorResult(e)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errorResult(&Error{Class: Transient, Message: "the call did not finish within its time limit", Hint: "ask for less, or try again later"})
	case errors.Is(err, context.Canceled):
		return errorResult(&Error{Class: Transient, Message: "the call was cancelled"})
	}
	e = &Error{Class: Internal, Message: "the tool failed", TraceID: newID("t-")}
	s.log.Error("tool failed", "request_id", req.ID, "tool", req.Tool, "trace_id", e.TraceID, "error", err.Error())
	return errorResult(e)
}
