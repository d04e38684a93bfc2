package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/repo-mcp/repo-mcp/internal/bufpool"
	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
)

// HTTPOptions configure [Server.HTTPHandler].
type HTTPOptions struct {
	// AllowedOrigins lists the browser origins (scheme://host[:port]) that
	// may call the server. Requests with any other Origin header are
	// refused with 403. Requests without an Origin (non-browser clients)
	// are allowed.
	AllowedOrigins []string
	// AllowedHosts lists extra Host header values accepted besides
	// loopback names: the names clients use when the server is reached
	// beyond loopback, directly or through a reverse proxy.
	AllowedHosts []string
	// Auth, when set, requires a bearer token on every request and makes
	// the token's user the caller of its calls. Without it, calls over
	// HTTP are made for [Options.Caller].
	Auth *BearerAuth
	// BodyTimeout bounds the time a POST's body may take to arrive, from
	// the moment its headers have: a client that sends a body slowly, or
	// never, is answered 408 and its connection closed, rather than hold
	// it. Default [DefaultBodyTimeout].
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is the default of [HTTPOptions.BodyTimeout]: ample
// for the largest message at a slow client's pace (8 MiB at 300 KiB/s).
const DefaultBodyTimeout = 30 * time.Second

// HTTPHandler returns the Streamable HTTP handler of the server, to mount
// at /mcp. It serves 2026-07-28 requests statelessly (any replica can answer
// any request) and legacy clients through go-sdk's per-request sessions. It
// refuses requests whose Host is not loopback or allowed, and browser
// requests from origins not allowed (DNS-rebinding and cross-site
// protection), and bounds every request body.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	engine := func(jsonResponse bool) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.engine() },
			&mcp.StreamableHTTPOptions{
				Stateless: true, JSONResponse: jsonResponse, Logger: engineLog(s.log),
				// The engine refuses every non-loopback Host on a loopback
				// listener; a reverse proxy there forwards the names the
				// guard allows.
				DisableLocalhostProtection: len(opts.AllowedHosts) > 0,
			})
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	g := &httpGuard{next: engine(true), stream: engine(false), opts: opts, maxBody: int64(s.opts.MaxFrameBytes), log: s.log, callers: s.callers, caller: s.opts.Caller, payloads: bufpool.New(keptPayloads, maxKeptPayload)}
	if opts.Auth != nil {
		g.authenticated = opts.Auth.require(http.HandlerFunc(g.serveAuthenticated))
	}
	return g
}

type httpGuard struct {
	// next answers with one JSON body; stream answers with an SSE stream,
	// which can carry a call's progress notifications before its result
	// (the only way they can travel in 2026-07-28).
	next    http.Handler
	stream  http.Handler
	opts    HTTPOptions
	maxBody int64
	log     *slog.Logger
	// payloads are the buffers of prepared payloads, shared by the calls
	// in flight and taken back once written (prepared.go).
	payloads *bufpool.Pool
	// authenticated is serveAuthenticated behind the bearer token check,
	// when the options ask for one.
	authenticated http.Handler
	// callers counts a request's caller while its body arrives, as the
	// tool chain counts the call it carries (nil: no limit); caller is
	// the one of requests without a token.
	callers *callerLimit
	caller  string
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		http.Error(w, "forbidden: Host is not allowed", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin) {
		http.Error(w, "forbidden: Origin is not allowed", http.StatusForbidden)
		return
	}
	if g.authenticated != nil {
		g.authenticated.ServeHTTP(challenger{w, hasBearer(r.Header.Get("Authorization"))}, r)
		return
	}
	g.serveAuthenticated(w, r)
}

// serveAuthenticated serves a request whose caller is known (or need not
// be): r's context holds its token, if any.
func (g *httpGuard) serveAuthenticated(w http.ResponseWriter, r *http.Request) {
	if c, ok := w.(challenger); ok {
		w = c.ResponseWriter // the challenge was for refusals only
	}
	if r.Method != http.MethodPost {
		g.next.ServeHTTP(w, r)
		return
	}
	body, err := g.readBody(w, r)
	if errors.Is(err, errCallerBusy) {
		w.Header().Set("Retry-After", "1")
		writeHTTPError(w, http.StatusTooManyRequests, nil, codeServerBusy, "too many calls in progress for this caller")
		return
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		w.Header().Set("Connection", "close")
		writeHTTPError(w, http.StatusRequestTimeout, nil, jsonrpc.CodeParseError,
			fmt.Sprintf("the request body did not arrive within %v", g.opts.BodyTimeout))
		return
	}
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "could not read the request body")
		return
	}
	if int64(len(body)) > g.maxBody {
		writeHTTPError(w, http.StatusRequestEntityTooLarge, leadingID(body[:min(len(body), oversizedPrefix)]),
			jsonrpc.CodeInvalidRequest, fmt.Sprintf("message exceeds the %d-byte bound", g.maxBody))
		return
	}
	msg, bad := checkFrame(bytes.TrimSpace(body))
	if bad != nil {
		writeHTTPError(w, http.StatusBadRequest, bad.id, bad.code, bad.message)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "tools/call" {
		g.serveAdvertised(w, r)
		return
	}
	r = r.WithContext(withCallIDs(r.Context(), oneCall(req.ID)))
	if hasProgressToken(req.Params) {
		// Progress goes on the call's own response stream. The result is
		// not prepared (spliced) then: it travels as an SSE event.
		g.stream.ServeHTTP(w, r)
		return
	}
	g.serveCall(w, r, req.ID)
}

var errCallerBusy = errors.New("the caller has its quota of calls in progress")

// codeServerBusy is the JSON-RPC error of a request refused because its
// caller has its quota of calls in progress: a code from the range the
// specification leaves to servers (-32000 to -32099).
const codeServerBusy = -32000

// readBody reads a POST's body, up to one byte past the bound, within the
// body timeout. While the body arrives the request counts as one of its
// caller's calls in progress, so a caller that opens requests and sends
// their bodies slowly is held to the same quota as one whose calls run
// slowly; the count ends when the body is in, and the call it carries is
// counted again by the tool chain. A request of a caller at its quota is
// refused at once (errCallerBusy) when some of the quota is bodies still
// arriving; when all of it is calls running, its body is read, within the
// timeout, and the tool chain refuses the call as transient, as it always
// has.
func (g *httpGuard) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if g.callers != nil {
		caller := g.caller
		if info := auth.TokenInfoFromContext(r.Context()); info != nil {
			caller = info.UserID
		}
		ok, trickling := g.callers.acquireBody(caller)
		switch {
		case ok:
			defer g.callers.releaseBody(caller)
		case trickling:
			return nil, errCallerBusy
		}
	}
	rc := http.NewResponseController(w)
	// A ResponseWriter that cannot set deadlines (a test's recorder) has
	// no connection to hold.
	if err := rc.SetReadDeadline(time.Now().Add(g.opts.BodyTimeout)); err == nil {
		defer rc.SetReadDeadline(time.Time{})
	}
	return io.ReadAll(io.LimitReader(r.Body, g.maxBody+1))
}

// hostAllowed accepts loopback hosts and those listed.
func (g *httpGuard) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range g.opts.AllowedHosts {
		if strings.EqualFold(a, hostport) || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// originAllowed accepts loopback origins and those listed.
func (g *httpGuard) originAllowed(origin string) bool {
	for _, a := range g.opts.AllowedOrigins {
		if strings.EqualFold(a, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return (&httpGuard{}).hostAllowed(u.Host)
}

func writeHTTPError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
}

// serveCall serves a tools/call whose result the server may prepare (see
// prepared.go): the engine's response, one JSON-RPC message in the body
// (JSONResponse), is held back and the payload spliced into it.
func (g *httpGuard) serveCall(w http.ResponseWriter, r *http.Request, id jsonrpc.ID) {
	p := &callPreparer{id: id, payloads: g.payloads}
	held := &heldResponse{header: w.Header(), status: http.StatusOK}
	g.next.ServeHTTP(held, r.WithContext(withPreparer(r.Context(), p)))
	body := held.body.Bytes()
	if err := r.Context().Err(); err != nil {
		// The client went away: over 2026-07-28 HTTP that is how a call
		// is cancelled, and there is no one left to answer.
		g.log.Info("call ended by the client's disconnect", "id", id.Raw(), "error", err)
		return
	}
	if held.status != http.StatusOK {
		body = advertiseModern(body)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	parts := [][]byte{body}
	if p.payload != nil {
		defer g.payloads.Put(p.payload) // written below, or not at all
		head, tail, err := spliceResponse(body)
		if err != nil {
			g.log.Error("prepared result over HTTP", "error", err)
			w.Header().Del("Content-Length") // the engine's, for the body not sent
			writeHTTPError(w, http.StatusInternalServerError, rawID(id), jsonrpc.CodeInternalError, "internal error: the result could not be encoded")
			return
		}
		parts = [][]byte{head}
		if tail != nil {
			parts = [][]byte{head, p.payload, tail}
		}
		n := 0
		for _, part := range parts {
			n += len(part)
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
	}
	w.WriteHeader(held.status)
	for _, part := range parts {
		if _, err := w.Write(part); err != nil {
			return // the client is gone; the server has nothing to add
		}
	}
}

// serveAdvertised serves a request other than tools/call, with the
// versions the engine advertises narrowed to those a request with
// per-request _meta can use (advertiseModern). The engine answers these
// with one small JSON body.
func (g *httpGuard) serveAdvertised(w http.ResponseWriter, r *http.Request) {
	held := &heldResponse{header: w.Header(), status: http.StatusOK}
	g.next.ServeHTTP(held, r)
	body := held.body.Bytes()
	if ct := w.Header().Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		body = advertiseModern(body)
		if w.Header().Get("Content-Length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
	}
	w.WriteHeader(held.status)
	w.Write(body)
}

// callPreparer takes the prepared payload of one call.
type callPreparer struct {
	id       jsonrpc.ID
	payload  []byte
	payloads *bufpool.Pool
}

func (p *callPreparer) payloadBuffer(n int) []byte { return p.payloads.Get(n) }

func (p *callPreparer) prepare(id jsonrpc.ID, payload []byte) {
	if id == p.id {
		p.payload = payload
	}
}

// heldResponse keeps what a handler writes.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header         { return h.header }
func (h *heldResponse) WriteHeader(status int)      { h.status = status }
func (h *heldResponse) Write(p []byte) (int, error) { return h.body.Write(p) }

// spliceResponse splits a JSON-RPC response the engine encoded where a
// prepared payload goes: the payload is written between head and tail,
// not copied into one body with them. A response without a result (an
// error) is head, as it is, and tail is nil: the payload is not written.
func spliceResponse(msg []byte) (head, tail []byte, err error) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '{' || !json.Valid(msg) {
		return nil, nil, fmt.Errorf("the engine's response is not a JSON object: %.40q", msg)
	}
	out := make([]byte, 0, len(msg)+2)
	out = append(out, '{')
	split := -1
	for key, value := range jsonscan.Members(msg) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = fastjson.AppendEscape(out, key, 0)
		out = append(out, ':')
		if key == "result" && len(value) > 0 && value[0] == '{' {
			out = append(out, '{')
			split = len(out)
			out = append(appendOtherMembers(out, value), '}')
		} else {
			out = append(out, value...)
		}
	}
	out = append(out, '}', '\n')
	if split < 0 {
		return out, nil, nil
	}
	return out[:split:split], out[split:], nil
}
