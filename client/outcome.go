package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Outcome is how a request ended. It answers the question a harness must
// settle before it can record a call: did the server get it, and do we know
// what it did?
type Outcome int

const (
	// Answered: the server's result was read. For tools/call, Result.IsError
	// tells a tool-level failure from success.
	Answered Outcome = iota
	// RPCError: the server answered with a JSON-RPC error (CallError.RPC).
	RPCError
	// NotSent: the request never reached the server (the connection was already
	// gone, the frame could not be encoded, or not one complete line was
	// written; over HTTP, no connection to the server was made).
	// Nothing happened on the server; retrying is safe.
	NotSent
	// TimedOut: the request was sent and its deadline passed. The server may
	// still be working on it; notifications/cancelled was sent as best effort.
	TimedOut
	// Cancelled: the request was sent and the caller's context was cancelled.
	// As with TimedOut, the server may still act on it.
	Cancelled
	// ConnectionLost: the request was sent and the server's stdout ended (it
	// exited, was killed, or closed it) before an answer came; over HTTP, the
	// exchange broke after the connection was made, or the session is gone.
	ConnectionLost
	// Oversized: the server answered with a frame over Limits.FrameBytes. The
	// frame was discarded; its first bytes are in CallError.Head.
	Oversized
	// BadResult: the server answered, but the result cannot be used: it does
	// not have the shape of its method's result, or it is a kind this client
	// does not support (a 2026 input_required result), or, over HTTP, the
	// answer was no JSON-RPC answer at all (a status page; see HTTPError).
	// Its first bytes are in CallError.Head.
	BadResult
)

var outcomeNames = [...]string{"answered", "rpc_error", "not_sent", "timed_out", "cancelled", "connection_lost", "oversized", "bad_result"}

func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// Sent reports whether the server may have received the request.
func (o Outcome) Sent() bool { return o != NotSent }

// Unknown reports whether the request was sent but the client cannot know
// what the server did with it: a side effect may or may not have happened,
// and the call must not be replayed without reconciliation.
func (o Outcome) Unknown() bool {
	switch o {
	case TimedOut, Cancelled, ConnectionLost, Oversized, BadResult:
		return true
	}
	return false
}

// OutcomeOf returns the outcome of a request from the error it returned:
// Answered for nil, the CallError's outcome when err wraps one, and NotSent
// for any other error (those come from before anything was written).
func OutcomeOf(err error) Outcome {
	if err == nil {
		return Answered
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Outcome
	}
	return NotSent
}

// RPCErrorObject is a JSON-RPC error object as the server sent it.
type RPCErrorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Lost describes the end of a connection.
type Lost struct {
	Reason     string // what ended it: "stdout closed", "closed by client", a read error, an HTTP failure
	Exited     bool   // whether the process had exited when the connection was declared lost
	ExitStatus string // e.g. "exit status 1", "signal: killed"; empty if not exited
	ExitCode   int    // -1 when killed by a signal or not exited
	Stderr     string // tail of the server's stderr (bounded by Limits.StderrBytes)
}

// CallError is the error of every request that did not end Answered.
type CallError struct {
	Method  string
	ID      int64 // the request's JSON-RPC id; 0 when never assigned
	Outcome Outcome

	RPC  *RPCErrorObject // RPCError: the server's error object
	Lost *Lost           // ConnectionLost, and NotSent after the connection ended (over HTTP, the request's own failure)

	Head []byte // Oversized, BadResult: first bytes of the answer
	Size int64  // Oversized, BadResult: size of the answer in bytes

	Err error // underlying cause (context error, write error), if any

	stderrTail int
}

func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcp %s (id %d): %s", e.Method, e.ID, e.Outcome)
	if e.Outcome.Unknown() {
		b.WriteString(" (request was sent; its effect is unknown)")
	}
	switch {
	case e.RPC != nil:
		fmt.Fprintf(&b, ": code %d: %s", e.RPC.Code, e.RPC.Message)
	case e.Outcome == Oversized:
		fmt.Fprintf(&b, ": answer of %d bytes exceeds the frame limit", e.Size)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if l := e.Lost; l != nil {
		fmt.Fprintf(&b, ": %s", l.Reason)
		if l.ExitStatus != "" {
			fmt.Fprintf(&b, ", %s", l.ExitStatus)
		}
		if tail := lastBytes(l.Stderr, e.stderrTail); tail != "" {
			fmt.Fprintf(&b, "; stderr: %q", tail)
		}
	}
	return b.String()
}

func (e *CallError) Unwrap() error { return e.Err }

func lastBytes(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if n <= 0 || len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
