package server

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress notifications.
//
// A client that will wait for a long call puts a progress token in the
// request's _meta; the server may then send notifications/progress for
// that request until it answers. Clients use them to show progress, and
// some (the TypeScript SDK with resetTimeoutOnProgress) to keep waiting past
// their request timeout: a call that reports progress is not given up on
// while it works. The spec requires the progress value to increase with
// every notification and forbids any after the response.
//
// A tool reports with [Request.Progress] as often as it likes; the
// reporter below turns that into at most one notification per
// progressInterval (the newest report wins), sends the last report
// before the response, and drops reports that do not advance.

// progressInterval is the least time between two notifications of one call.
const progressInterval = 250 * time.Millisecond

// progressUpdate is one report: progress (done) so far out of total (0 when
// unknown), and a message for the person.
type progressUpdate struct {
	done, total float64
	message     string
}

// progressSender sends one notification for the call.
type progressSender func(ctx context.Context, u progressUpdate) error

// progressReporter throttles a call's reports. The zero of *progressReporter
// (nil) is a call without a progress token: every report is dropped.
type progressReporter struct {
	ctx  context.Context // the request's: over HTTP it names the response stream
	send progressSender

	mu       sync.Mutex
	last     float64 // the highest progress accepted, sent or pending
	accepted bool    // whether any report was accepted
	sentAt   time.Time
	pending  *progressUpdate
	timer    *time.Timer // sends pending when the interval is over
	closed   bool        // the call has answered: nothing more may be sent

	// sending serializes sends, so notifications leave in the order their
	// values increase.
	sending sync.Mutex
}

func newProgressReporter(ctx context.Context, send progressSender) *progressReporter {
	return &progressReporter{ctx: ctx, send: send}
}

// report accepts u if it advances, and sends it now or when the interval
// since the last notification is over.
func (p *progressReporter) report(u progressUpdate) {
	if p == nil || math.IsNaN(u.done) || math.IsInf(u.done, 0) || math.IsNaN(u.total) || math.IsInf(u.total, 0) {
		return
	}
	if u.total < 0 {
		u.total = 0
	}
	p.mu.Lock()
	if p.closed || (p.accepted && u.done <= p.last) {
		p.mu.Unlock()
		return
	}
	p.accepted, p.last = true, u.done
	wait := progressInterval - time.Since(p.sentAt)
	if p.sentAt.IsZero() || wait <= 0 {
		p.pending = nil
		p.sentAt = time.Now()
		p.sending.Lock() // before mu is released: no later report overtakes this one
		p.mu.Unlock()
		p.deliver(u)
		return
	}
	p.pending = &u
	if p.timer == nil {
		p.timer = time.AfterFunc(wait, p.flushPending)
	}
	p.mu.Unlock()
}

// flushPending sends the pending report, if the call has not answered.
func (p *progressReporter) flushPending() {
	p.mu.Lock()
	p.timer = nil
	u := p.pending
	if u == nil || p.closed {
		p.mu.Unlock()
		return
	}
	p.pending = nil
	p.sentAt = time.Now()
	p.sending.Lock()
	p.mu.Unlock()
	p.deliver(*u)
}

// deliver sends u; p.sending is held and released here.
func (p *progressReporter) deliver(u progressUpdate) {
	defer p.sending.Unlock()
	// A notification that cannot be sent (the client went away) changes
	// nothing for the call: its response will not arrive either.
	_ = p.send(p.ctx, u)
}

// finish sends the last report if it is still pending, waits for any send
// in progress, and stops reporting: the call is about to answer.
func (p *progressReporter) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	u := p.pending
	p.pending = nil
	p.sending.Lock()
	p.mu.Unlock()
	if u != nil {
		p.deliver(*u)
		return
	}
	p.sending.Unlock()
}

// Progress reports how far the call has come: done units of work out of
// total (0 when the total is unknown), with a short message for the person
// waiting. It becomes a notifications/progress to the client when the
// call's request carried a progress token, and does nothing otherwise, so
// a tool may report unconditionally.
//
// Report as often as is convenient: notifications go out at most four
// times a second, carrying the newest report, and the last report is sent
// before the result. Progress must increase, as MCP requires of the
// notifications: a report whose done is not above the previous one's is
// dropped, so a long step with nothing to count should report fractional
// progress within it. Clients may keep waiting for as long as progress
// arrives and give up after their own timeout without it (60 seconds for
// the TypeScript SDK's), so a tool that can run longer should report at
// least every few seconds.
//
// It takes no context: the notification belongs to the call's request
// (over HTTP, to its response stream), whose context the Request holds.
func (r *Request) Progress(done, total float64, message string) {
	r.progress.report(progressUpdate{done: done, total: total, message: message})
}

// progressFor returns the reporter of a call, or nil when its request
// carried no valid progress token (a string or an integer).
func progressFor(ctx context.Context, creq *mcp.CallToolRequest, version string) *progressReporter {
	token := creq.Params.GetProgressToken()
	switch t := token.(type) {
	case string:
	case float64: // how a JSON number decodes
		if t != math.Trunc(t) {
			return nil
		}
	default:
		return nil
	}
	session := creq.Session
	return newProgressReporter(ctx, func(ctx context.Context, u progressUpdate) error {
		n := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: u.done, Total: u.total, Message: u.message}
		if version == "2024-11-05" {
			n.Message = "" // the field came with 2025-03-26
		}
		return session.NotifyProgress(ctx, n)
	})
}

// hasProgressToken reports whether the params of a request carry a
// progress token.
func hasProgressToken(params json.RawMessage) bool {
	if !bytes.Contains(params, []byte(`"progressToken"`)) {
		return false // most calls: no need to decode what may be a large request
	}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	t := bytes.TrimSpace(p.Meta.ProgressToken)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}
