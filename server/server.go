package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for [Options].
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxResultBytes = 1 << 20
	DefaultMaxFrameBytes  = 8 << 20
	DefaultCaller         = "local"
)

// Options configure a [Server]. The zero value is usable.
type Options struct {
	// Logger receives the server's operational log (errors with their
	// trace ids, panics with their stacks). It must not write to stdout.
	// Nil means JSON lines on stderr.
	Logger *slog.Logger
	// Audit receives one JSON line per tool call. Nil means stderr.
	Audit io.Writer
	// AuditArguments adds the raw arguments to audit lines. Off by default:
	// arguments may hold file contents.
	AuditArguments bool
	// Caller is the identity of calls that arrive without one of their own
	// (every call over stdio). Default [DefaultCaller].
	Caller string
	// Authorize, when set, runs for every call after its arguments are
	// validated and before its handler. An error refuses the call; return
	// an [*Error] of class PermissionDenied saying which rule refused.
	Authorize func(ctx context.Context, req *Request) error
	// MaxCallsPerCaller, when positive, bounds the calls one caller may
	// have in progress; more are refused as transient. A server shared by
	// several callers (over HTTP) keeps one from taking it from the others.
	MaxCallsPerCaller int
	// Middleware runs inside authorization and outside the per-tool
	// timeout, in order.
	Middleware []Middleware
	// Observers run outside everything else, in order, so that they see
	// every call and its result, refused or not: metrics and traces.
	// Result.Refusal says why the server refused a call.
	Observers []Middleware
	// Timeout is the default per-call deadline. Default [DefaultTimeout];
	// negative means none.
	Timeout time.Duration
	// MaxResultBytes is the default bound of one result. Default
	// [DefaultMaxResultBytes].
	MaxResultBytes int
	// MaxFrameBytes bounds one incoming JSON-RPC message. Default
	// [DefaultMaxFrameBytes].
	MaxFrameBytes int
	// Families, when not nil, are the tool families the server serves:
	// [Register] skips a tool of any other family (see [Tool.Family]).
	Families []string
	// Visible, when set, decides which tools a caller is offered: a tool
	// it returns false for is left out of the caller's tools/list, and a
	// call to it is refused as an unknown tool, as if it did not exist.
	// It should say whether any call of the tool could pass [Options.Authorize].
	Visible func(caller string, t Tool) bool
	// StateKey seals the state a tool saves when it asks the person behind
	// the client a question (see Ask). Replicas that serve one client must
	// share it. Default: a random key per process.
	StateKey []byte
	// Schemas are tool schemas generated ahead of time ([Server.Schemas]
	// made them), by tool name. [Register] takes a tool's from here
	// instead of deriving them while the tool's types are those they were
	// made from, and derives them otherwise.
	Schemas map[string]GeneratedSchema
}

// Info names the server to clients.
type Info struct {
	Name, Version, Title string
	// Instructions tell a model how to use the server as a whole.
	Instructions string
}

// Server holds registered tools and serves them over stdio or HTTP. Create
// one with [New], add tools with [Register], then call [Server.Serve] on
// the protocol stream [TakeStdout] returns (stdio) or mount
// [Server.HTTPHandler] (Streamable HTTP).
type Server struct {
	info     Info
	opts     Options
	log      *slog.Logger
	auditLog *slog.Logger
	auditOut *auditWriter // auditLog's writer; the audit line's encoder writes to it too
	callers  *callerLimit // nil: no limit
	stacks   *warmStacks  // where calls run (warmstack.go)

	mu        sync.Mutex
	tools     map[string]*registered
	templates []ResourceTemplate // resources.go
	mcp       *mcp.Server        // built when first served

	life lifecycle // warm-up work, draining and what Close releases
}

// New returns a server with no tools.
func New(info Info, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(stderr(), nil))
	}
	if opts.Audit == nil {
		opts.Audit = stderr()
	}
	if opts.Caller == "" {
		opts.Caller = DefaultCaller
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxResultBytes <= 0 {
		opts.MaxResultBytes = DefaultMaxResultBytes
	}
	if opts.MaxFrameBytes <= 0 {
		opts.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if len(opts.StateKey) == 0 {
		opts.StateKey = newStateKey()
	}
	audit := &auditWriter{w: opts.Audit}
	return &Server{
		info:     info,
		opts:     opts,
		log:      opts.Logger,
		auditLog: slog.New(slog.NewJSONHandler(audit, nil)),
		auditOut: audit,
		callers:  newCallerLimit(opts.MaxCallsPerCaller),
		stacks:   newWarmStacks(idleStacks),
		tools:    make(map[string]*registered),
	}
}

func (s *Server) add(r *registered) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mcp != nil {
		return fmt.Errorf("tool %s: register tools before serving", r.def.Name)
	}
	if !s.Serves(r.def.Family) {
		return nil
	}
	if _, dup := s.tools[r.def.Name]; dup {
		return fmt.Errorf("tool %s: already registered", r.def.Name)
	}
	r.handle = s.chain(r)
	s.tools[r.def.Name] = r
	return nil
}

// ToolInfo describes a registered tool, as clients see it.
type ToolInfo struct {
	Name, Title, Description string
	Effect                   Effect
	ReadOnly, Destructive    bool
	Idempotent, OpenWorld    bool
	InputSchema              map[string]any
	OutputSchema             map[string]any
}

// Tools lists the registered tools, sorted by name.
func (s *Server) Tools() []ToolInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ToolInfo
	for _, name := range slices.Sorted(maps.Keys(s.tools)) {
		r := s.tools[name]
		a := r.def.annotations()
		out = append(out, ToolInfo{
			Name: r.def.Name, Title: r.def.Title, Description: r.def.wireDescription(),
			Effect: r.def.Effect, ReadOnly: a.ReadOnly, Destructive: a.Destructive,
			Idempotent: a.Idempotent, OpenWorld: a.OpenWorld,
			InputSchema: r.input.Map(), OutputSchema: r.output.Map(),
		})
	}
	return out
}

// ToolNames lists the names of the registered tools, sorted. Unlike
// [Server.Tools], it decodes no schema.
func (s *Server) ToolNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.tools))
}

// engine returns the protocol engine, building it on first use. Tools are
// fixed from then on.
func (s *Server) engine() *mcp.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mcp != nil {
		return s.mcp
	}
	// Tools, and resources when a template names some, declared
	// explicitly: no logging, no list changes (both sets are fixed once
	// serving starts).
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	if len(s.templates) > 0 {
		caps.Resources = &mcp.ResourceCapabilities{}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: s.info.Name, Version: s.info.Version, Title: s.info.Title},
		&mcp.ServerOptions{Instructions: s.info.Instructions, Logger: engineLog(s.log), Capabilities: caps})
	s.addResources(srv)
	listed := make(map[string]*mcp.Tool, len(s.tools))
	srv.AddReceivingMiddleware(coded, declaredOnly(caps), s.visibleOnly, fullSchemas(listed))
	for _, name := range slices.Sorted(maps.Keys(s.tools)) {
		r := s.tools[name]
		registered, full := r.wireTools()
		listed[name] = full
		srv.AddTool(registered, s.callHandler(r))
	}
	s.mcp = srv
	return srv
}

// coded gives every error a JSON-RPC code: go-sdk sends an error that is
// not a *jsonrpc.Error with code 0, which no client can act on. (The stdio
// frame guard checks the same on the wire; this covers HTTP too.)
func coded(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "tools/call" && err != nil {
			if r := unasked(err); r != nil {
				return r, nil
			}
		}
		if err != nil {
			if _, ok := errors.AsType[*jsonrpc.Error](err); !ok {
				err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
		}
		return res, err
	}
}

// declaredOnly refuses the methods of features the server does not
// declare in caps (go-sdk would answer some of them, with empty lists,
// regardless), so that what a client can call matches the capabilities it
// was told.
func declaredOnly(caps *mcp.ServerCapabilities) mcp.Middleware {
	refused := []string{"prompts/", "completion/", "logging/"}
	if caps.Resources == nil {
		refused = append(refused, "resources/")
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			for _, prefix := range refused {
				if strings.HasPrefix(method, prefix) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %q (this server does not offer it)", method)}
				}
			}
			return next(ctx, method, req)
		}
	}
}

func (r *registered) wireTool() *mcp.Tool {
	a := r.def.annotations()
	return &mcp.Tool{
		Name:         r.def.Name,
		Title:        r.def.Title,
		Description:  r.def.wireDescription(),
		InputSchema:  r.input.wire(),
		OutputSchema: r.output.wire(),
		Annotations: &mcp.ToolAnnotations{
			Title:           r.def.Title,
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &a.Destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   &a.OpenWorld,
		},
	}
}

// callHandler adapts a registered tool to go-sdk's low-level handler: go-sdk
// neither validates nor decodes; the chain does.
func (s *Server) callHandler(r *registered) mcp.ToolHandler {
	return func(ctx context.Context, creq *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req := s.begin(r, creq.Params.Arguments)
		req.ProtocolVersion = creq.ProtocolVersion()
		req.Meta = creq.Params.Meta
		if id, ok := callIDFor(ctx, creq); ok {
			req.rpcID, req.RPCID = id, string(rawID(id))
		}
		// A caller whose tool schema has no request_id (a host that sends
		// it for every server) may send it in _meta; the argument wins.
		if id, ok := creq.Params.Meta[MetaRequestID].(string); ok && !req.idGiven && validRequestID(id) {
			req.ID = id
		}
		if extra := creq.Extra; extra != nil {
			req.Header = extra.Header
			if req.Header.Get("Authorization") != "" {
				req.Header = req.Header.Clone()
				req.Header.Del("Authorization")
			}
			if extra.TokenInfo != nil {
				req.Caller = extra.TokenInfo.UserID // see BearerAuth
			}
		}
		// Decoding the capabilities from _meta costs about a sixth of
		// what a small call allocates: only a tool that asks needs them.
		req.canAsk = sync.OnceValue(func() bool {
			caps := creq.ClientCapabilities()
			return caps != nil && caps.Elicitation != nil
		})
		req.roundErr = s.receiveRound(req, creq.Params)
		req.progress = progressFor(ctx, creq, req.ProtocolVersion)
		defer req.progress.finish() // the last report goes out before the result
		var res *Result
		s.stacks.run(func() { res = r.handle(ctx, req) })
		if res.ask != nil {
			return s.inputRequired(req, res.ask), nil
		}
		out := res.wire(req.ID)
		res.wireLinks(out, req.ProtocolVersion)
		return prepareResult(ctx, req, res, out), nil
	}
}

// wire converts a result to go-sdk's form.
func (res *Result) wire(requestID string) *mcp.CallToolResult {
	out := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: res.Text}},
		Meta:    mcp.Meta{MetaRequestID: requestID},
	}
	if res.Err != nil {
		out.IsError = true
		out.Meta[MetaError] = errorMeta(res.Err)
		return out
	}
	if res.Structured != nil {
		out.StructuredContent = json.RawMessage(res.Structured)
	}
	if res.Truncated {
		out.Meta[MetaTruncated] = true
	}
	return out
}

// stderr is where the server logs by default.
func stderr() io.Writer { return os.Stderr }
