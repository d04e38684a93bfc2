package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/audit"
	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/tools"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// MaxLine bounds one command line.
const MaxLine = 1 << 20

// Command is one input line.
type Command struct {
	ID         string `json:"id,omitempty"` // echoed in the response
	Cmd        string `json:"cmd"`
	Task       string `json:"task,omitempty"`
	Run        string `json:"run,omitempty"`
	Call       string `json:"call,omitempty"`
	Digest     string `json:"digest,omitempty"`
	Definition string `json:"definition,omitempty"`
	By         string `json:"by,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Decision   string `json:"decision,omitempty"`
	Note       string `json:"note,omitempty"`
	Source     string `json:"source,omitempty"`
	Tool       string `json:"tool,omitempty"`
}

// Response answers one command.
type Response struct {
	Type    string          `json:"type"` // "response"
	ID      string          `json:"id,omitempty"`
	Cmd     string          `json:"cmd"`
	OK      bool            `json:"ok"`
	Error   string          `json:"error,omitempty"`
	Run     string          `json:"run,omitempty"`
	Status  *harness.Status `json:"status,omitempty"`
	Tools   []Tool          `json:"tools,omitempty"`
	Pending []tools.Pending `json:"pending,omitempty"`
	Records []audit.Record  `json:"records,omitempty"`
}

// Tool is a row of the tool table.
type Tool struct {
	Alias      string `json:"alias"`
	Source     string `json:"source"`
	Tool       string `json:"tool"`
	Effect     string `json:"effect"`
	Definition string `json:"definition"`
	Mismatch   string `json:"mismatch,omitempty"`
	Disabled   string `json:"disabled,omitempty"`
}

// Hello is the first line the harness writes.
type Hello struct {
	Type      string          `json:"type"` // "hello"
	Protocol  int             `json:"protocol"`
	Tools     []Tool          `json:"tools"`
	Pending   []tools.Pending `json:"pending,omitempty"`
	Recovered []string        `json:"recovered,omitempty"`
	Problems  []string        `json:"problems,omitempty"`
}

// Writer serializes output lines; it is safe for concurrent use. Events
// that arrive before the hello line (those of recovering runs) are held
// and written right after it.
type Writer struct {
	mu      sync.Mutex
	out     io.Writer
	buf     bytes.Buffer
	enc     *json.Encoder // into buf
	err     error
	started bool
	held    []any
}

// NewWriter returns a writer of lines to w.
func NewWriter(w io.Writer) *Writer {
	jw := &Writer{out: w}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw
}

// Write writes v as one line.
func (w *Writer) Write(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked(v)
	return w.err
}

// writeLocked encodes v, escapes what a reader of the stream would
// interpret (visible.JSON: the encoder leaves DEL, C1 controls and bidi
// characters raw), and writes the line. The caller holds w.mu.
func (w *Writer) writeLocked(v any) {
	if w.err != nil {
		return
	}
	w.buf.Reset()
	if w.err = w.enc.Encode(v); w.err != nil {
		return
	}
	_, w.err = w.out.Write(visible.JSON(w.buf.Bytes()))
}

// Event writes an event line; it is what harness.Options.Observe takes.
func (w *Writer) Event(ev eventlog.Event) {
	line := struct {
		Type  string         `json:"type"`
		Event eventlog.Event `json:"event"`
	}{"event", ev}
	w.mu.Lock()
	if !w.started {
		w.held = append(w.held, line)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	w.Write(line)
}

// start writes the hello line and the events held before it.
func (w *Writer) start(hello Hello) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = true
	for _, v := range append([]any{hello}, w.held...) {
		w.writeLocked(v)
	}
	w.held = nil
	return w.err
}

func toolRows(h *harness.Harness) []Tool {
	var out []Tool
	for _, e := range h.Tools() {
		out = append(out, Tool{Alias: e.Alias, Source: e.Source, Tool: e.Tool, Effect: string(e.Effect), Definition: e.Definition, Mismatch: e.Mismatch, Disabled: e.Disabled})
	}
	return out
}

// Serve writes the hello line, then runs commands from in until it ends or
// ctx is done. Slow commands (wait) answer later; responses carry the
// command's id.
func Serve(ctx context.Context, h *harness.Harness, in io.Reader, w *Writer) error {
	hello := Hello{Type: "hello", Protocol: 1, Tools: toolRows(h), Pending: h.PendingTools(), Recovered: h.Recovered()}
	for _, u := range h.Unavailable() {
		hello.Problems = append(hello.Problems, fmt.Sprintf("%s: left out: %s", u.Source, u.Reason))
	}
	for _, p := range h.Problems() {
		hello.Problems = append(hello.Problems, fmt.Sprintf("%s.%s: %s", p.Source, p.Tool, p.Reason))
	}
	if err := w.start(hello); err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	lines, readErr := readLines(in)
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok := <-lines:
			if !ok {
				return <-readErr
			}
			line = l
		}
		var c Command
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			w.Write(Response{Type: "response", Cmd: "?", Error: "malformed command: " + err.Error()})
			continue
		}
		if c.Cmd == "wait" {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.Write(do(ctx, h, c))
			}()
			continue
		}
		if err := w.Write(do(ctx, h, c)); err != nil {
			return err
		}
	}
}

// readLines sends the non-empty lines of in until it ends; then the error
// channel says why (nil at the end of input).
func readLines(in io.Reader) (<-chan []byte, <-chan error) {
	lines, errc := make(chan []byte), make(chan error, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), MaxLine)
		for sc.Scan() {
			if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
				lines <- append([]byte(nil), line...)
			}
		}
		if err := sc.Err(); err != nil {
			errc <- fmt.Errorf("jsonl: reading commands: %w", err)
			return
		}
		errc <- nil
	}()
	return lines, errc
}

func do(ctx context.Context, h *harness.Harness, c Command) Response {
	r := Response{Type: "response", ID: c.ID, Cmd: c.Cmd, Run: c.Run}
	var err error
	switch c.Cmd {
	case "submit":
		if c.Task == "" {
			err = errors.New("submit needs a task")
			break
		}
		r.Run, err = h.Submit(ctx, c.Task)
	case "status", "wait":
		var st harness.Status
		if c.Cmd == "wait" {
			st, err = h.Wait(ctx, c.Run)
		} else {
			st, err = h.Status(c.Run)
		}
		if err == nil {
			r.Status = &st
		}
	case "approve":
		err = h.Approve(c.Run, c.Call, c.Digest, c.Definition, c.By)
	case "deny":
		err = h.Deny(c.Run, c.Call, c.By, c.Reason)
	case "cancel":
		err = h.Cancel(c.Run)
	case "reconcile":
		err = h.Reconcile(c.Run, c.Call, c.Decision, c.By, c.Note)
	case "resume":
		err = h.Resume(c.Run)
	case "tools":
		r.Tools, r.Pending = toolRows(h), h.PendingTools()
	case "approve_tool":
		if c.By == "" {
			err = errors.New("approve_tool needs by")
			break
		}
		err = h.ApproveTool(c.Source, c.Tool, c.Definition, c.By)
	case "audit":
		r.Records, err = audit.Query(h.RunsDir(), audit.Filter{Run: c.Run, Source: c.Source, Tool: c.Tool})
	default:
		err = fmt.Errorf("unknown command %q", c.Cmd)
	}
	r.OK = err == nil
	if err != nil {
		r.Error = err.Error()
	}
	return r
}
