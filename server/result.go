package server

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MetaError is the result _meta key under which a failed call's error is
// given as structured data: {class, message, hint, retryable, trace_id}.
const MetaError = "io.github.repo-mcp/error"

// MetaRequestID is the result _meta key that echoes the call's request_id.
const MetaRequestID = "io.github.repo-mcp/request_id"

// MetaTruncated is the result _meta key set to true when the server cut the
// text content to the result bound.
const MetaTruncated = "io.github.repo-mcp/truncated"

// Texter is implemented by tool outputs that render their own text content.
// Without it the text content is the compact JSON of the output. A tool
// whose output is large (a file's contents) renders it once, as text, and
// leaves it out of the structured output, or the other way round.
type Texter interface {
	Text() string
}

// TextPiecer is implemented by tool outputs whose text content is large
// and made of pieces the tool holds already: a header, a page of a file as
// the workspace caches it, a note. The server escapes the pieces straight
// into the answer it writes, where joining them into a string first (and
// the tool copying its page into one) cost two copies of every page of a
// paged file. Each piece must end on a character boundary. TextPieces is
// called once per call, and the pieces are read after the tool returns,
// so they must not change.
type TextPiecer interface {
	TextPieces() [][]byte
}

// JSONAppender is implemented by tool outputs that encode themselves:
// AppendJSON appends to b exactly what encoding/json's Marshal makes of the
// output (a test of the tool should compare the two). A large output, such
// as a 10 000-entry listing, is then written into one buffer sized once,
// without reflection or the buffer growing by doubling, which was a tenth
// of a first listing's CPU.
type JSONAppender interface {
	AppendJSON(b []byte) []byte
}

// Result is the outcome of a call as it travels back through middleware.
type Result struct {
	// Structured is the JSON of the tool's output; nil on error.
	Structured json.RawMessage
	// Text is the text content. A result whose tool gives its text in
	// pieces ([TextPiecer]) holds it as pieces and leaves Text empty:
	// middleware that reads or replaces the text calls FullText first.
	Text string
	// pieces, when set, is the text content in place of Text.
	pieces [][]byte
	// Err is set when the call failed.
	Err *Error
	// Truncated reports that Text was cut to the result bound.
	Truncated bool
	// Links name resources the person can see ([Linker]).
	Links []Link
	// Refusal, when set, says why the server refused the call before its
	// tool ran: [RefusedAuth] or [RefusedLimit].
	Refusal string
	// ask, when set, ends this round of the call with questions for the
	// person behind the client (see Ask).
	ask *askError
}

// size is the number of bytes the result's payload takes.
func (r *Result) size() int { return len(r.Structured) + r.TextLen() }

// TextLen is the length of the text content, in pieces or not.
func (r *Result) TextLen() int {
	n := len(r.Text)
	for _, p := range r.pieces {
		n += len(p)
	}
	return n
}

// FullText returns the text content, joining it into Text first when it is
// in pieces.
func (r *Result) FullText() string {
	if r.pieces != nil {
		var b strings.Builder
		b.Grow(r.TextLen())
		b.WriteString(r.Text)
		for _, p := range r.pieces {
			b.Write(p)
		}
		r.Text, r.pieces = b.String(), nil
	}
	return r.Text
}

// errorResult returns the result for a failed call.
func errorResult(e *Error) *Result {
	return &Result{Err: e, Text: errorText(e)}
}

// errorText renders e for the text content of a result: "<class>:
// message", then the hint and the trace id when present.
func errorText(e *Error) string {
	var b strings.Builder
	b.WriteString(string(e.Class))
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(e.Hint)
	}
	if e.Class == Transient && e.RetryAfter > 0 {
		fmt.Fprintf(&b, "\nretry after: %s", e.RetryAfter)
	}
	if e.TraceID != "" {
		b.WriteString("\ntrace id: ")
		b.WriteString(e.TraceID)
	}
	return b.String()
}

// errorMeta is the structured form of e under [MetaError].
func errorMeta(e *Error) map[string]any {
	m := map[string]any{
		"class":     e.Class,
		"message":   e.Message,
		"retryable": e.Class.Retryable(),
	}
	if e.Hint != "" {
		m["hint"] = e.Hint
	}
	if e.TraceID != "" {
		m["trace_id"] = e.TraceID
	}
	if e.RetryAfter > 0 {
		m["retry_after_ms"] = e.RetryAfter.Milliseconds()
	}
	if e.Details != nil {
		m["details"] = e.Details
	}
	return m
}

// withRequestIDField returns the JSON object obj with a leading
// "request_id" member. obj is the marshalled output struct, so it is an
// object without that member (registration refuses outputs that declare it).
func withRequestIDField(obj []byte, id string) []byte {
	quoted := strconv.Quote(id) // id is printable ASCII, so this is valid JSON
	out := make([]byte, 0, len(obj)+len(quoted)+16)
	out = append(out, `{"request_id":`...)
	out = append(out, quoted...)
	if len(obj) > 2 { // not "{}": json.Marshal output is compact
		out = append(out, ',')
	}
	return append(out, obj[1:]...)
}

// appendWithRequestID is withRequestIDField for an output that encodes
// itself: the output is appended after the leading member, with no copy.
func appendWithRequestID(a JSONAppender, id string) []byte {
	out := append(make([]byte, 0, 64), `{"request_id":`...)
	out = strconv.AppendQuote(out, id) // id is printable ASCII, so this is valid JSON
	at := len(out)
	out = a.AppendJSON(out)
	if string(out[at:]) == "{}" {
		return append(out[:at], '}')
	}
	out[at] = ',' // the output's opening brace
	return out
}

// truncateText cuts s to at most max bytes on a rune boundary and says so.
func truncateText(s string, limit int) string {
	note := fmt.Sprintf("\n[truncated by the server: %d of %d bytes shown]", 0, len(s))
	keep := limit - len(note) - 8
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + fmt.Sprintf("\n[truncated by the server: %d of %d bytes shown]", keep, len(s))
}

// Why the server refuses a call before its tool runs ([Result.Refusal]).
const (
	RefusedAuth     = "auth"     // Options.Authorize refused it
	RefusedLimit    = "limit"    // the caller had Options.MaxCallsPerCaller calls in progress
	RefusedDraining = "draining" // the server is shutting down (Server.Drain)
)
