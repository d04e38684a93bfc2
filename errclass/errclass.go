// Package errclass holds the classes of tool errors: the first word of
// every failed tool result ("not_found: ..."), from which a model or a
// harness decides what to do next. It imports nothing of this project, so
// that every layer can return classed errors without importing the layer
// that renders them: workspace/ and the tools return an [*Error], and
// server/ (which re-exports these names) turns it into a result.
package errclass

import (
	"errors"
	"fmt"
	"time"
)

// Class names the kind of failure a tool call ended with. A model (or a
// harness) decides what to do next from the class alone: fix the arguments,
// ask for permission, look elsewhere, re-read and retry, wait, or report.
type Class string

// The error classes. Their string values are part of the wire contract: every
// failed tool result's text starts with "<class>: ".
const (
	// InvalidInput: the arguments are wrong; retrying with other arguments may work.
	InvalidInput Class = "invalid_input"
	// PermissionDenied: the caller may not do this; retrying will not help.
	PermissionDenied Class = "permission_denied"
	// NotFound: the named workspace, revision, path or object does not exist.
	NotFound Class = "not_found"
	// PreconditionFailed: the state the caller relied on has changed (a stale
	// base, a moved branch); re-read, then retry.
	PreconditionFailed Class = "precondition_failed"
	// Transient: a temporary failure; the same call may succeed later.
	Transient Class = "transient"
	// Internal: a fault in the server. It carries a trace id that also appears
	// in the server's log, so an operator can find the cause.
	Internal Class = "internal"
)

// Classes lists every class, in the order above.
var classes = [...]Class{InvalidInput, PermissionDenied, NotFound, PreconditionFailed, Transient, Internal}

// Valid reports whether c is one of the defined classes.
func (c Class) Valid() bool {
	for _, k := range classes {
		if c == k {
			return true
		}
	}
	return false
}

// Retryable reports whether the same call may succeed if simply repeated.
func (c Class) Retryable() bool { return c == Transient }

// Error is a classed tool error. Handlers return it (directly or wrapped) to
// tell the caller what went wrong in terms it can act on. Any other error a
// handler returns is reported as Internal, without its text, because its text
// may hold details (paths, addresses) the caller must not see.
type Error struct {
	Class   Class
	Message string // shown to the caller; must not reveal what the caller may not see
	Hint    string // optional: what to do about it
	// RetryAfter, for Transient errors, suggests how long to wait.
	RetryAfter time.Duration
	// TraceID identifies an Internal error in the server's log. The framework
	// sets it when it is empty.
	TraceID string
	// Details is optional structured data for the caller (for example the
	// list of argument violations). It must marshal to JSON.
	Details any
	// Err is the underlying cause. It is logged, never sent to the caller.
	Err error
}

// Errorf returns an Error of the given class with a formatted message. The
// message is sent to the caller; wrap causes with [Error.Wrap] instead of %w
// so their text stays in the server.
func Errorf(class Class, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns e with its hint set.
func (e *Error) WithHint(hint string) *Error {
	e.Hint = hint
	return e
}

// Wrap returns e with its underlying cause set.
func (e *Error) Wrap(cause error) *Error {
	e.Err = cause
	return e
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Class, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Class, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error of the same class, so that
// errors.Is(err, &errclass.Error{Class: errclass.NotFound}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Class == e.Class
}

// ClassOf returns the class of err: the class of the first *Error in its
// chain, or Internal when there is none.
func ClassOf(err error) Class {
	if e, ok := errors.AsType[*Error](err); ok && e.Class.Valid() {
		return e.Class
	}
	return Internal
}
