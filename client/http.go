package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"

	"github.com/repo-mcp/repo-mcp/internal/sameorigin"
)

// Endpoint says which Streamable HTTP server to reach and how.
type Endpoint struct {
	URL string // the MCP endpoint, e.g. "https://mcp.example.com/mcp"
	// Header is sent with every request, e.g. Authorization. Its values are
	// never logged and never appear in errors.
	Header http.Header
	// HTTPClient sends the requests; nil means a client of the connection's
	// own, whose idle connections Close closes and which follows only the
	// redirects that keep the POST (307, 308). Either way a redirect to
	// another origin (scheme, host or port) is not followed, so Header
	// never leaves the origin of URL. Its Timeout should be zero:
	// Timeouts bound each request. When its Transport is not an
	// *http.Transport, the client cannot see whether a connection was made,
	// so a request that fails is never reported NotSent.
	HTTPClient *http.Client
}

// Errors an HTTP status stands for; a *HTTPError wraps them.
var (
	// ErrCredentials: the server answered 401 or 403: it refused the
	// credentials sent in Endpoint.Header (or their absence).
	ErrCredentials = errors.New("client: the server refused the credentials")
	// ErrSessionGone: the server answered 404 to a request of a legacy
	// session: it no longer knows the session, and the connection is lost.
	ErrSessionGone = errors.New("client: the HTTP session is gone")
)

// HTTPError is an HTTP answer that carried no JSON-RPC message: a status
// outside 2xx without a JSON-RPC error body, or a 2xx that is not an answer.
type HTTPError struct {
	StatusCode  int
	Status      string // e.g. "401 Unauthorized"
	ContentType string
	Challenge   string // the WWW-Authenticate header, if any
	Detail      string // what was wrong, for a 2xx
	Body        string // the first bytes of the body, for a person to read
	Location    string // the Location header of a redirect that was not followed
	session     bool   // the request belonged to a legacy session
}

func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %s", e.Status)
	switch {
	case e.Detail != "":
		fmt.Fprintf(&b, ": %s", e.Detail)
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		b.WriteString(": the server refused the credentials")
		if e.Challenge != "" {
			fmt.Fprintf(&b, " (WWW-Authenticate: %s)", e.Challenge)
		}
	case e.StatusCode == http.StatusNotFound && e.session:
		b.WriteString(": the server no longer knows this session; the session is gone")
	case e.Location != "":
		fmt.Fprintf(&b, ": a redirect to %q, not followed (another origin, or a POST turned into a GET); configure the URL it names if that is the server", e.Location)
	}
	if e.Body != "" {
		fmt.Fprintf(&b, "; body (%s): %q", e.ContentType, e.Body)
	}
	return b.String()
}

// Unwrap returns ErrCredentials for 401 and 403, and ErrSessionGone for a
// legacy session's 404.
func (e *HTTPError) Unwrap() error {
	switch {
	case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden:
		return ErrCredentials
	case e.StatusCode == http.StatusNotFound && e.session:
		return ErrSessionGone
	}
	return nil
}

const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerSession         = "Mcp-Session-Id"
)

// httpBodyQuote is how much of an unusable body an HTTPError quotes.
const httpBodyQuote = 200

// Dial connects to the Streamable HTTP server at ep and runs the handshake
// (see Options.Era), as Start does for a process. ctx bounds the handshake
// only. Timeouts.CloseGrace bounds the DELETE that ends a legacy session;
// Limits.FrameBytes bounds each response body and each SSE event.
func Dial(ctx context.Context, ep Endpoint, opts Options) (*Conn, error) {
	opts = opts.withDefaults()
	u, err := url.Parse(ep.URL)
	if err != nil {
		return nil, fmt.Errorf("client: endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: endpoint %q: want an http or https URL", u.Redacted())
	}
	// Only scheme, host and path are logged: a query or user info may hold a secret.
	where := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	c := newConn(opts, opts.Logger.With("server", where))
	c.overHTTP = true
	c.t = newHTTPTransport(c, u.String(), ep)
	if err := c.handshake(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// httpTransport sends each message as its own POST and reads what ends a
// request from that POST's response: one JSON object, or an SSE stream of
// messages up to the response.
type httpTransport struct {
	c      *Conn
	url    string
	header http.Header
	client *http.Client
	own    bool // client is the connection's own
	traced bool // client's transport reports connections to httptrace

	life context.Context // ends at Close: aborts every request in flight
	stop context.CancelFunc
	wg   sync.WaitGroup // request goroutines

	mu      sync.Mutex
	session string // legacy Mcp-Session-Id, once initialize answered with one
	gone    bool   // the server answered 404 for the session
	closed  bool   // close has begun: no request goroutine may start
}

var errClosed = errors.New("client: connection closed")

func newHTTPTransport(c *Conn, u string, ep Endpoint) *httpTransport {
	h := &httpTransport{c: c, url: u, header: ep.Header.Clone()}
	if ep.HTTPClient == nil {
		h.client = &http.Client{
			Transport:     http.DefaultTransport.(*http.Transport).Clone(),
			CheckRedirect: sameorigin.CheckRedirect(keepPOST),
		}
		h.own = true
	} else {
		// A copy, so that the caller's client keeps its own policy while
		// this one never carries Header to another origin.
		own := *ep.HTTPClient
		own.CheckRedirect = sameorigin.CheckRedirect(ep.HTTPClient.CheckRedirect)
		h.client = &own
	}
	switch h.client.Transport.(type) {
	case nil, *http.Transport:
		h.traced = true
	}
	h.life, h.stop = context.WithCancel(context.Background())
	return h
}

// keepPOST follows only the redirects that repeat the POST with its body
// (307, 308). After a 301, 302 or 303 net/http would send a GET without the
// message, which an MCP endpoint may answer with an unrelated event stream;
// the redirect itself is the answer then, reported as an HTTPError.
func keepPOST(req *http.Request, via []*http.Request) error {
	if req.Method != via[0].Method || len(via) >= 10 {
		return http.ErrUseLastResponse
	}
	return nil
}

func (h *httpTransport) pid() int                { return 0 }
func (h *httpTransport) stderrRing() *stderrRing { return nil }

func (h *httpTransport) sessionID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}

// send POSTs m. A request's POST goes on in a goroutine that delivers what
// ends it; send returns once a connection to the server was made. A
// notification's or a response's POST is waited for.
func (h *httpTransport) send(ctx context.Context, m outgoing) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	stopLife := context.AfterFunc(h.life, cancel)
	release := func() { stopLife(); cancel() }
	req, err := h.newRequest(ctx, http.MethodPost, m)
	if err != nil {
		// Nothing left the process: the request could not even be built.
		release()
		return false, fmt.Errorf("client: building the HTTP request: %w", err)
	}
	connected := make(chan struct{})
	var once sync.Once
	markConnected := func() { once.Do(func() { close(connected) }) }
	if h.traced {
		trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { markConnected() }}
		req = req.WithContext(httptrace.WithClientTrace(ctx, trace))
	} else {
		markConnected() // cannot tell: assume the worst, that it was sent
	}
	if m.id == 0 {
		defer release()
		return h.postMessage(req, connected)
	}
	early := make(chan error, 1)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		release()
		return false, errClosed
	}
	h.wg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		defer release()
		resp, err := h.client.Do(req)
		if err != nil {
			select {
			case <-connected:
				h.failed(ctx, m.id, ConnectionLost, fmt.Errorf("HTTP request failed: %w", err))
			default:
				early <- err
			}
			return
		}
		markConnected()
		h.readResponse(ctx, resp, m)
	}()
	select {
	case <-connected:
		return false, nil
	case err := <-early:
		// No connection was made (the dial failed, or the context ended
		// first), so no byte of the request can have reached the server.
		return false, fmt.Errorf("client: no connection to the server: %w", err)
	}
}

func (h *httpTransport) newRequest(ctx context.Context, method string, m outgoing) (*http.Request, error) {
	var body io.Reader
	if method == http.MethodPost {
		body = bytes.NewReader(m.line)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.url, body)
	if err != nil {
		return nil, err
	}
	for k, v := range h.header {
		req.Header[k] = v
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if m.version != "" {
		req.Header.Set(headerProtocolVersion, m.version)
	}
	switch {
	case m.modern && m.method != "":
		req.Header.Set(headerMethod, m.method)
		if m.method == "tools/call" {
			req.Header.Set(headerName, headerValue(m.name))
			for k, v := range m.params {
				req.Header.Set(k, v)
			}
		}
	case !m.modern:
		if sid := h.sessionID(); sid != "" {
			req.Header.Set(headerSession, sid)
		}
	}
	return req, nil
}

// headerValue is v as a header value: as is when it is plain visible ASCII,
// else in the base64 sentinel form (2026-07-28 Streamable HTTP, Value Encoding).
func headerValue(v string) string {
	sentinel := strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")
	plain := v != "" && !sentinel && strings.TrimSpace(v) == v
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] == ' ' || v[i] == '\t' || (v[i] > 0x20 && v[i] < 0x7f)
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// postMessage POSTs a notification or a response and waits for its status:
// 202 (any 2xx) means accepted.
func (h *httpTransport) postMessage(req *http.Request, connected <-chan struct{}) (bool, error) {
	if _, ok := req.Context().Deadline(); !ok {
		ctx, cancel := context.WithTimeout(req.Context(), h.c.opts.Timeouts.Write)
		defer cancel()
		req = req.WithContext(ctx)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		select {
		case <-connected:
			return true, fmt.Errorf("client: HTTP request failed: %w", err)
		default:
			return false, fmt.Errorf("client: no connection to the server: %w", err)
		}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	b := readBounded(resp.Body, h.c.opts.Limits.FrameBytes, h.c.opts.Limits.OversizedKeep, -1, nil)
	return true, h.httpError(resp, b.head, "")
}

// failed ends request id with outcome, unless its context ended first: then
// the waiting caller reports the timeout or cancellation itself.
func (h *httpTransport) failed(ctx context.Context, id int64, outcome Outcome, err error) {
	if ctx.Err() != nil {
		return
	}
	h.c.finish(id, reply{fail: &failure{outcome: outcome, err: err, lost: requestLost(err)}})
}

// requestLost describes a lost HTTP request: the connection as a whole
// lives on, but the caller gets the reason in CallError.Lost as on stdio.
func requestLost(err error) *Lost { return &Lost{Reason: err.Error(), ExitCode: -1} }

func (h *httpTransport) readResponse(ctx context.Context, resp *http.Response, m outgoing) {
	defer resp.Body.Close()
	if sid := resp.Header.Get(headerSession); sid != "" && m.method == methodInitialize {
		h.mu.Lock()
		h.session = sid
		h.mu.Unlock()
	}
	limits := h.c.opts.Limits
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode/100 != 2:
		h.statusFailed(ctx, resp, m)
	case mediaType == "application/json":
		b := readBounded(resp.Body, limits.FrameBytes, limits.OversizedKeep, resp.ContentLength, h.c.frames)
		h.readJSON(ctx, resp, m, b)
	case mediaType == "text/event-stream":
		h.readSSE(ctx, resp, m)
	default:
		b := readBounded(resp.Body, limits.FrameBytes, limits.OversizedKeep, -1, nil)
		detail := fmt.Sprintf("a %s answer to a request; want application/json or text/event-stream", describeType(resp))
		h.c.finish(m.id, h.badResult(resp, b, detail))
	}
}

func describeType(resp *http.Response) string {
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "bodiless"
}

// readJSON reads a body that must be the JSON-RPC response to m.
func (h *httpTransport) readJSON(ctx context.Context, resp *http.Response, m outgoing, b bounded) {
	c := h.c
	switch {
	case b.err != nil:
		h.failed(ctx, m.id, ConnectionLost, fmt.Errorf("reading the response body: %w", b.err))
		return
	case b.oversized:
		c.stats.frames.Add(1)
		c.stats.bytes.Add(b.size)
		c.stats.oversized.Add(1)
		c.log.Warn("mcp oversized answer discarded", "bytes", b.size, "id", m.id)
		c.finish(m.id, reply{oversized: &frame{oversized: true, head: b.head, tail: b.tail, size: b.size}})
		return
	}
	if !c.routeHTTP(b.body, m.id, b.pooled) {
		c.finish(m.id, h.badResult(resp, b, "the response body is not the answer to this request"))
	}
}

// statusFailed ends a request the server answered with a status outside
// 2xx: with its JSON-RPC error when the body holds one, else with an
// HTTPError. A legacy session's 404 also ends the connection.
func (h *httpTransport) statusFailed(ctx context.Context, resp *http.Response, m outgoing) {
	b := readBounded(resp.Body, h.c.opts.Limits.FrameBytes, h.c.opts.Limits.OversizedKeep, -1, nil)
	if !b.oversized && b.err == nil {
		if msg, kind := decodeMessage(b.body); kind != kindNotJSON && msg.Error != nil && answers(msg.ID, m.id) {
			h.c.stats.frames.Add(1)
			h.c.stats.bytes.Add(b.size)
			h.c.finish(m.id, reply{rpcErr: msg.Error})
			return
		}
	}
	herr := h.httpError(resp, b.head, "")
	if !herr.session || resp.StatusCode != http.StatusNotFound {
		h.c.finish(m.id, reply{fail: &failure{outcome: BadResult, err: herr, head: b.head, size: b.size}})
		return
	}
	l := &Lost{Reason: herr.Error(), ExitCode: -1}
	h.mu.Lock()
	h.gone = true
	h.mu.Unlock()
	// The connection is lost before the request learns why, so that its
	// caller finds Done closed.
	p := h.c.take(m.id)
	h.c.lose(l)
	if p != nil {
		p.reply <- reply{fail: &failure{outcome: ConnectionLost, err: herr, lost: l}}
	}
}

// answers reports whether an error response's id names request own: it is
// own, or null or absent (a server that could not read the id).
func answers(raw []byte, own int64) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	id, ok := parseID(raw)
	return ok && id == own
}

func (h *httpTransport) httpError(resp *http.Response, head []byte, detail string) *HTTPError {
	e := &HTTPError{
		StatusCode:  resp.StatusCode,
		Status:      resp.Status,
		ContentType: resp.Header.Get("Content-Type"),
		Challenge:   resp.Header.Get("WWW-Authenticate"),
		Detail:      detail,
		Body:        string(head[:min(len(head), httpBodyQuote)]),
		session:     resp.Request.Header.Get(headerSession) != "",
	}
	if resp.StatusCode/100 == 3 {
		e.Location = resp.Header.Get("Location")
	}
	if e.Status == "" {
		e.Status = fmt.Sprint(resp.StatusCode)
	}
	return e
}

func (h *httpTransport) badResult(resp *http.Response, b bounded, detail string) reply {
	return reply{fail: &failure{outcome: BadResult, err: h.httpError(resp, b.head, detail), head: b.head, size: b.size}}
}

// readSSE reads events until the response to m, answering server requests
// and counting notifications on the way.
func (h *httpTransport) readSSE(ctx context.Context, resp *http.Response, m outgoing) {
	c := h.c
	sr := newSSEReader(resp.Body, c.opts.Limits.FrameBytes, c.opts.Limits.OversizedKeep)
	for {
		ev, err := sr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the server ended the event stream before the response")
			} else {
				err = fmt.Errorf("reading the event stream: %w", err)
			}
			h.failed(ctx, m.id, ConnectionLost, err)
			return
		}
		if ev.name != "" && ev.name != "message" {
			continue // not a JSON-RPC message
		}
		if !ev.oversized {
			if c.routeHTTP(ev.data, m.id, false) {
				return
			}
			continue
		}
		c.stats.frames.Add(1)
		c.stats.bytes.Add(ev.size)
		c.stats.oversized.Add(1)
		if id, ok := oversizedID(ev.head, ev.tail); ok && id == m.id {
			c.log.Warn("mcp oversized answer discarded", "bytes", ev.size, "id", id)
			c.finish(m.id, reply{oversized: &frame{oversized: true, head: ev.head, tail: ev.tail, size: ev.size}})
			return
		}
		c.log.Warn("mcp oversized event answers no pending request; dropped", "bytes", ev.size)
	}
}

// close ends the connection: requests in flight end ConnectionLost, their
// POSTs are aborted, and a legacy session is ended with DELETE.
func (h *httpTransport) close() error {
	h.c.lose(&Lost{Reason: "closed by client", ExitCode: -1})
	h.mu.Lock()
	sid, gone := h.session, h.gone
	h.closed = true
	h.mu.Unlock()
	var err error
	if sid != "" && !gone {
		err = h.deleteSession()
	}
	h.stop()
	h.wg.Wait()
	if h.own {
		h.client.CloseIdleConnections()
	}
	return err
}

// deleteSession ends the legacy session. 404 (already gone) and 405 (the
// server does not let clients end sessions) are not errors.
func (h *httpTransport) deleteSession() error {
	ctx, cancel := context.WithTimeout(context.Background(), h.c.opts.Timeouts.CloseGrace)
	defer cancel()
	var version string
	if e := h.c.era.Load(); e != nil {
		version = e.version
	}
	req, err := h.newRequest(ctx, http.MethodDelete, outgoing{version: version})
	if err != nil {
		return fmt.Errorf("client: ending the HTTP session: %w", err)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("client: ending the HTTP session: %w", err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2, resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusMethodNotAllowed:
		return nil
	}
	return fmt.Errorf("client: ending the HTTP session: HTTP %s", resp.Status)
}
