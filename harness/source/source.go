package source

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/repo-mcp/repo-mcp/client"
)

// Source discovers and calls tools.
type Source interface {
	// ID names the source: "local" or "mcp.<server>".
	ID() string
	// Discover lists the tools as the source describes them.
	Discover(ctx context.Context) ([]Descriptor, error)
	// Call calls tool with args (a JSON object). It returns a result when the
	// tool answered, IsError included, and otherwise a *CallError.
	Call(ctx context.Context, tool string, args json.RawMessage) (*Result, error)
	// Close releases the source (stops a server process).
	Close() error
}

// Descriptor is a tool as its source describes it.
type Descriptor struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`
}

// Annotations are a server's hints about a tool; nil fields were not given.
type Annotations struct {
	ReadOnly    *bool `json:"readOnlyHint,omitempty"`
	Destructive *bool `json:"destructiveHint,omitempty"`
	Idempotent  *bool `json:"idempotentHint,omitempty"`
	OpenWorld   *bool `json:"openWorldHint,omitempty"`
}

// Result is a tool's answer.
type Result struct {
	Content []Content
	IsError bool
	Raw     json.RawMessage // the result as received (or built, for Local)
}

// Content is one content block; only text is interpreted.
type Content struct {
	Type string
	Text string
	Raw  json.RawMessage
}

// Text joins the text blocks.
func (r *Result) Text() string {
	var s string
	for i, c := range r.Content {
		if c.Type != "text" {
			continue
		}
		if i > 0 && s != "" {
			s += "\n"
		}
		s += c.Text
	}
	return s
}

// Unsupported lists the types of the blocks that are not text.
func (r *Result) Unsupported() []string {
	var kinds []string
	for _, c := range r.Content {
		if c.Type != "text" {
			kinds = append(kinds, c.Type)
		}
	}
	return kinds
}

// CallError is the error of a call that returned no result. Its outcome is
// the client's (client.Outcome): one classification of how a call ended,
// shared by the MCP client and every source, so that a call is recorded the
// same way whichever source made it.
type CallError struct {
	Outcome client.Outcome
	Message string
	Head    []byte // Oversized, BadResult: the first bytes of the answer
	Size    int64  // Oversized, BadResult: its size
	Err     error
}

func (e *CallError) Error() string { return fmt.Sprintf("%s: %s", e.Outcome, e.Message) }
func (e *CallError) Unwrap() error { return e.Err }

// ParseResult decodes a tools/call result as stored (Result.Raw).
func ParseResult(raw json.RawMessage) (*Result, error) {
	var r struct {
		Content []json.RawMessage `json:"content"`
		IsError bool              `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	out := &Result{IsError: r.IsError, Raw: raw}
	for _, b := range r.Content {
		var c struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		json.Unmarshal(b, &c)
		out.Content = append(out.Content, Content{Type: c.Type, Text: c.Text, Raw: b})
	}
	return out, nil
}
