package server

import "github.com/repo-mcp/repo-mcp/errclass"

// The error classes live in package errclass, which imports nothing of this
// project, so that the layers under the server (workspace/, the tools) can
// return classed errors without importing the server. These names are the
// same types and values, for handlers that already import server.

// Class names the kind of failure a tool call ended with; see
// [errclass.Class].
type Class = errclass.Class

// Error is a classed tool error; see [errclass.Error].
type Error = errclass.Error

// The error classes; see package errclass.
const (
	InvalidInput       = errclass.InvalidInput
	PermissionDenied   = errclass.PermissionDenied
	NotFound           = errclass.NotFound
	PreconditionFailed = errclass.PreconditionFailed
	Transient          = errclass.Transient
	Internal           = errclass.Internal
)

// Errorf returns an Error of the given class with a formatted message; see
// [errclass.Errorf].
func Errorf(class Class, format string, args ...any) *Error {
	return errclass.Errorf(class, format, args...)
}

// ClassOf returns the class of err; see [errclass.ClassOf].
func ClassOf(err error) Class { return errclass.ClassOf(err) }
