package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/internal/bufpool"
	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
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
//
// Over Streamable HTTP a tool whose inputSchema marks arguments with
// x-mcp-header against the rules is left out, logged with the reason and
// counted (Stats.RejectedTools), as 2026-07-28 requires: one malformed tool
// must not take the others with it. The marks of the tools kept are what
// Call mirrors into Mcp-Param-* headers.
func (c *Conn) Tools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	marks := make(map[string][]paramHeader)
	var cursor *string
	for page := 0; ; page++ {
		if page == c.opts.Limits.ListPages {
			return tools, fmt.Errorf("%w: tools/list has more than %d pages", ErrLimit, page)
		}
		var r struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
		}
		decode := func(a answer) error { return json.Unmarshal(a.raw, &r) }
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
			if c.overHTTP {
				m, err := paramHeaders(t.InputSchema)
				if err != nil {
					c.stats.rejectedTools.Add(1)
					c.log.Warn("mcp tool left out", "tool", t.Name, "reason", err)
					continue
				}
				marks[t.Name] = m
			}
			tools = append(tools, t)
		}
		if r.NextCursor == nil {
			c.marksMu.Lock()
			c.marks = marks
			c.marksMu.Unlock()
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
	StructuredContent json.RawMessage // as sent; nil when absent; shares Raw's bytes
	IsError           bool
	Raw               json.RawMessage // the whole result as received; the Result's own bytes

	frames *bufpool.Pool // where buf goes back on Release
	buf    []byte        // the frame buffer Raw is in, when it can be reused
}

// Release gives the bytes of the result as received back to its
// connection, to read a later answer into, and clears Raw,
// StructuredContent and each Content's Raw, which share them; the Content's
// Text strings are copies and stay valid. No slice of those bytes taken
// before Release may be used after it: a later answer overwrites them.
//
// Calling it is optional. It pays for a caller of large results one after
// another (a file read in pages of a megabyte): without it, each answer
// is read into a new buffer, which the runtime must clear and fault in.
// Releasing a result twice, or one whose bytes cannot be reused, is a no-op.
func (r *Result) Release() {
	if r.buf != nil {
		r.frames.Put(r.buf)
	}
	r.buf, r.frames, r.Raw, r.StructuredContent = nil, nil, nil, nil
	for i := range r.Content {
		r.Content[i].Raw = nil
	}
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
	Raw         json.RawMessage // the block as received; shares Result.Raw's bytes
}

// Call calls the tool name with args (anything that marshals to a JSON object;
// nil sends no arguments). It returns the result when the server answered
// with one, even when IsError is set, and otherwise a *CallError whose Outcome
// says whether the call was sent and whether its effect is known.
func (c *Conn) Call(ctx context.Context, name string, args any) (*Result, error) {
	return c.CallMeta(ctx, name, args, nil)
}

// CallMeta is Call with meta added to the request's params._meta (a
// caller's request id, say). Keys of the 2026-07-28 per-request _meta
// (io.modelcontextprotocol/...) are the connection's and are not
// overridden.
func (c *Conn) CallMeta(ctx context.Context, name string, args any, meta map[string]any) (*Result, error) {
	if raw, ok := args.(json.RawMessage); ok && len(raw) == 0 {
		args = nil
	}
	res, err := c.call(ctx, name, args, meta)
	var ce *CallError
	if errors.As(err, &ce) && ce.Outcome == RPCError && ce.RPC.Code == codeHeaderMismatch && c.mirrorsParams() {
		// The server checks headers before the tool runs, so the call had
		// no effect. The tool's schema may have changed since the last
		// tools/list: list again and retry once, as the specification
		// advises (2026-07-28 Streamable HTTP, Custom Headers, Client
		// Behavior).
		c.log.Info("mcp header mismatch; listing tools again before one retry", "tool", name, "err", ce.RPC.Message)
		if _, lerr := c.Tools(ctx); lerr != nil {
			return nil, err
		}
		return c.call(ctx, name, args, meta)
	}
	return res, err
}

// call sends one tools/call, with the Mcp-Param-* headers its tool's marks
// ask for when the connection mirrors them.
func (c *Conn) call(ctx context.Context, name string, args any, meta map[string]any) (*Result, error) {
	params := callParams{Name: name, Arguments: args, Meta: c.meta}
	if len(meta) > 0 {
		m, err := mergeMeta(c.meta, meta)
		if err != nil {
			return nil, &CallError{Method: "tools/call", Outcome: NotSent, Err: err}
		}
		params.Meta = m
	}
	if c.mirrorsParams() {
		c.marksMu.Lock()
		marks := c.marks[name]
		c.marksMu.Unlock()
		if len(marks) > 0 && args != nil {
			raw, err := json.Marshal(args)
			if err != nil {
				return nil, &CallError{Method: "tools/call", Outcome: NotSent, Err: err}
			}
			params.Arguments = json.RawMessage(raw)
			if params.headers, err = paramHeaderValues(marks, raw); err != nil {
				return nil, &CallError{Method: "tools/call", Outcome: NotSent, Err: err}
			}
		}
	}
	var res *Result
	decode := func(a answer) error {
		var err error
		res, err = a.call.result(a.raw)
		if err == nil && a.buf != nil {
			res.frames, res.buf = c.frames, a.buf
		}
		return err
	}
	if err := c.roundTrip(ctx, c.opts.Timeouts.Call, "tools/call", params, decode); err != nil {
		return nil, err
	}
	return res, nil
}

// mergeMeta adds extra to the connection's _meta (nil in the legacy era);
// the connection's own keys win.
func mergeMeta(own json.RawMessage, extra map[string]any) (json.RawMessage, error) {
	merged := make(map[string]any, len(extra)+3)
	for k, v := range extra {
		merged[k] = v
	}
	if len(own) > 0 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(own, &m); err != nil {
			return nil, err
		}
		for k, v := range m {
			merged[k] = v
		}
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return nil, fmt.Errorf("client: _meta: %w", err)
	}
	return b, nil
}

// mirrorsParams reports whether calls carry Mcp-Param-* headers: over
// Streamable HTTP in the 2026-07-28 era (stdio clients may ignore the marks).
func (c *Conn) mirrorsParams() bool {
	e := c.era.Load()
	return c.overHTTP && e != nil && e.modern
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments any             `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`

	headers map[string]string // Mcp-Param-* headers, by full name
}

// callResult is a result read as a tools/call result, by the reader while it
// reads the frame. It holds no reference to the frame: content blocks and
// structuredContent are offsets into the result's bytes, which the reader
// hands over with it.
type callResult struct {
	blocks     []block
	structured span // end 0 when absent
	isError    bool
	resultType string
	mismatch   bool // a field has the wrong JSON type: the result is malformed
}

// span is a range of offsets into a result's bytes.
type span struct{ start, end int }

// block is one content block: Content without its Raw.
type block struct {
	typ         string
	text        string
	unsupported bool
	raw         span
}

// readResult reads a result as a tools/call result, as json.Unmarshal into
// a struct of its fields (content as []json.RawMessage) and then each content
// block into struct{Type string; Text *string} would. It returns the result's
// bytes too. Whether the answer is a tools/call result is not known yet: for
// any other result, the work is a syntax check, which skipping would do anyway.
func readResult(d *jsonscan.Scanner) (*callResult, []byte, bool) {
	d.SkipSpace()
	start := d.Pos()
	r := new(callResult)
	var ok bool
	switch d.Peek() {
	case '{':
		ok = d.Object(func(key []byte) bool { return readCallResultField(d, r, key, start) })
	case 'n':
		ok = d.Literal("null") // decodes to nothing
	default:
		r.mismatch = true
		ok = d.Skip()
	}
	return r, d.Span(start), ok
}

// callResultField reads one member of a result; offsets are relative to origin,
// where the result starts.
func readCallResultField(d *jsonscan.Scanner, r *callResult, key []byte, origin int) bool {
	switch {
	case jsonscan.KeyIs(key, "content"):
		switch d.Peek() {
		case '[':
			r.blocks = r.blocks[:0] // a duplicate key replaces the array
			return d.Array(func() bool {
				b, ok := readContentBlock(d, origin)
				r.blocks = append(r.blocks, b)
				return ok
			})
		case 'n':
			r.blocks = nil
			return d.Literal("null")
		}
		r.mismatch = true
		return d.Skip()
	case jsonscan.KeyIs(key, "structuredContent"):
		d.SkipSpace()
		from := d.Pos()
		ok := d.Skip()
		r.structured = span{from - origin, d.Pos() - origin}
		return ok
	case jsonscan.KeyIs(key, "isError"):
		return d.BoolField(&r.isError, &r.mismatch)
	case jsonscan.KeyIs(key, "resultType"):
		return d.StringField(&r.resultType, &r.mismatch)
	}
	return d.Skip()
}

// contentBlock reads one content block. Only a text block whose fields all
// have the right types is supported; any other block is kept with the type
// it names, if any. The text is decoded as it is read, in one pass: it is
// most of a large answer.
func readContentBlock(d *jsonscan.Scanner, origin int) (block, bool) {
	d.SkipSpace()
	b := block{unsupported: true, raw: span{start: d.Pos() - origin}}
	var ok bool
	if d.Peek() != '{' {
		ok = d.Skip() // null, or a mismatch: unsupported either way
		b.raw.end = d.Pos() - origin
		return b, ok
	}
	var (
		mismatch bool
		hasText  bool // text is a string, not null
		text     string
	)
	ok = d.Object(func(key []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "type"):
			return d.StringField(&b.typ, &mismatch)
		case jsonscan.KeyIs(key, "text"):
			switch d.Peek() {
			case '"':
				var ok bool
				text, ok = d.StrValue()
				hasText = true
				return ok
			case 'n':
				hasText = false
				return d.Literal("null")
			}
			mismatch = true
			return d.Skip()
		}
		return d.Skip()
	})
	b.raw.end = d.Pos() - origin
	if ok && !mismatch && b.typ == "text" && hasText {
		b.text, b.unsupported = text, false
	}
	return b, ok
}

// result builds the Result from r and raw, the result's bytes.
func (r *callResult) result(raw json.RawMessage) (*Result, error) {
	if r.mismatch {
		return nil, fmt.Errorf("malformed tools/call result: %w", mismatchError(raw))
	}
	if r.resultType != "" && r.resultType != "complete" {
		return nil, fmt.Errorf("unsupported tools/call result type %q", r.resultType)
	}
	res := &Result{IsError: r.isError, Raw: raw}
	if r.structured.end > 0 {
		res.StructuredContent = raw[r.structured.start:r.structured.end]
	}
	if len(r.blocks) > 0 {
		res.Content = make([]Content, len(r.blocks))
	}
	for i, b := range r.blocks {
		res.Content[i] = Content{Type: b.typ, Text: b.text, Unsupported: b.unsupported, Raw: raw[b.raw.start:b.raw.end]}
	}
	return res, nil
}

// mismatchError returns the error json.Unmarshal reports for a tools/call
// result with a field of the wrong type. Malformed results are rare, and an
// error worded as encoding/json words it is worth a second read of one.
func mismatchError(raw json.RawMessage) error {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		ResultType        string            `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	return errors.New("a field has the wrong type")
}
