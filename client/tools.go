package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrLimit means a server sent more than a Limits field allows.
var ErrLimit = errors.New("client: limit exceeded")

// Tool is a tool as the server describes it. Everything in it is the
// server's claim: annotations are hints, never permissions.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  json.RawMessage
	Raw          json.RawMessage // the tool object as received
}

// Tools lists the server's tools, following nextCursor for at most
// Limits.ListPages pages and Limits.Tools tools. When a limit is reached it
// returns the tools read so far and an error wrapping ErrLimit; any other
// error wraps the *CallError of the page that failed.
func (c *Conn) Tools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	var cursor *string
	for page := 0; ; page++ {
		if page == c.opts.Limits.ListPages {
			return tools, fmt.Errorf("%w: tools/list has more than %d pages", ErrLimit, page)
		}
		var r struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
		}
		decode := func(raw json.RawMessage) error { return json.Unmarshal(raw, &r) }
		params := listParams{Cursor: cursor, Meta: c.meta}
		if err := c.roundTrip(ctx, c.opts.Timeouts.List, "tools/list", params, decode); err != nil {
			return nil, err
		}
		for _, raw := range r.Tools {
			if len(tools) == c.opts.Limits.Tools {
				return tools, fmt.Errorf("%w: server lists more than %d tools", ErrLimit, len(tools))
			}
			t, err := parseTool(raw)
			if err != nil {
				return nil, fmt.Errorf("client: tools/list page %d: %w", page+1, err)
			}
			tools = append(tools, t)
		}
		if r.NextCursor == nil {
			return tools, nil
		}
		cursor = r.NextCursor
	}
}

type listParams struct {
	Cursor *string         `json:"cursor,omitempty"` // "" is a valid cursor
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

func parseTool(raw json.RawMessage) (Tool, error) {
	var t struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return Tool{}, fmt.Errorf("malformed tool: %w", err)
	}
	if t.Name == "" {
		return Tool{}, fmt.Errorf("tool without a name: %s", headString(raw))
	}
	return Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
		Annotations:  t.Annotations,
		Raw:          raw,
	}, nil
}

// Result is the answer to a tools/call. IsError is the tool's own report of
// failure (the call reached the tool); a failed request is a *CallError instead.
type Result struct {
	Content           []Content
	StructuredContent json.RawMessage // as sent; nil when absent
	IsError           bool
	Raw               json.RawMessage // the whole result as received
}

// Size is the number of bytes of the result as received.
func (r *Result) Size() int { return len(r.Raw) }

// Text joins the text blocks of the result with newlines.
func (r *Result) Text() string {
	var texts []string
	for _, c := range r.Content {
		if !c.Unsupported {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Unsupported counts the content blocks that are not text.
func (r *Result) Unsupported() int {
	n := 0
	for _, c := range r.Content {
		if c.Unsupported {
			n++
		}
	}
	return n
}

// Content is one content block. Only text is interpreted; every other type
// (image, audio, resource, resource_link, unknown) is kept as raw JSON and
// marked Unsupported, so nothing is guessed at.
type Content struct {
	Type        string
	Text        string          // the text of a text block
	Unsupported bool            // not a text block: use Raw
	Raw         json.RawMessage // the block as received
}

// Call calls the tool name with args (anything that marshals to a JSON object;
// nil sends no arguments). It returns the result when the server answered
// with one, even when IsError is set, and otherwise a *CallError whose Outcome
// says whether the call was sent and whether its effect is known.
func (c *Conn) Call(ctx context.Context, name string, args any) (*Result, error) {
	if raw, ok := args.(json.RawMessage); ok && len(raw) == 0 {
		args = nil
	}
	var res *Result
	decode := func(raw json.RawMessage) error {
		var err error
		res, err = parseResult(raw)
		return err
	}
	params := callParams{Name: name, Arguments: args, Meta: c.meta}
	if err := c.roundTrip(ctx, c.opts.Timeouts.Call, "tools/call", params, decode); err != nil {
		return nil, err
	}
	return res, nil
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments any             `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

func parseResult(raw json.RawMessage) (*Result, error) {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		ResultType        string            `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("malformed tools/call result: %w", err)
	}
	if r.ResultType != "" && r.ResultType != "complete" {
		return nil, fmt.Errorf("unsupported tools/call result type %q", r.ResultType)
	}
	res := &Result{StructuredContent: r.StructuredContent, IsError: r.IsError, Raw: raw}
	for _, block := range r.Content {
		res.Content = append(res.Content, parseContent(block))
	}
	return res, nil
}

func parseContent(raw json.RawMessage) Content {
	var b struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &b); err != nil || b.Type != "text" || b.Text == nil {
		return Content{Type: b.Type, Unsupported: true, Raw: raw}
	}
	return Content{Type: b.Type, Text: *b.Text, Raw: raw}
}
