package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/repo-mcp/repo-mcp/internal/heapfloor"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/metrics"
	"github.com/repo-mcp/repo-mcp/server/oauth"
	"github.com/repo-mcp/repo-mcp/server/tracing"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// serveConfig is what the serve flags say.
type serveConfig struct {
	workspaces   []string
	configFile   string
	httpAddr     string
	allowRemote  bool
	hosts        []string
	maxCalls     int
	bodyTimeout  time.Duration
	stateKey     string
	auditLog     string
	identity     string
	cpuProfile   string
	drainTimeout time.Duration
	metricsAddr  string
	otlpEndpoint string
	tools        toolConfig
}

func parseServe(args []string, stdout, stderr io.Writer) (*serveConfig, error) {
	var c serveConfig
	fs := newFlagSet("serve", stdout, stderr)
	fs.Func("workspace", "a workspace as ID=PATH (repeatable)", func(v string) error {
		if id, path, ok := strings.Cut(v, "="); !ok || id == "" || path == "" {
			return fmt.Errorf("want ID=PATH, got %q", v)
		}
		c.workspaces = append(c.workspaces, v)
		return nil
	})
	fs.StringVar(&c.configFile, "config", "", "YAML configuration `file`")
	fs.StringVar(&c.httpAddr, "http", "", "serve Streamable HTTP at /mcp on `addr` (default: stdio)")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow --http on a non-loopback address")
	fs.Func("allowed-host", "a Host `name` HTTP clients may use besides loopback ones (repeatable)", func(v string) error {
		c.hosts = append(c.hosts, v)
		return nil
	})
	fs.IntVar(&c.maxCalls, "max-calls-per-caller", 16, "over HTTP, the calls one caller may have in progress (0: no limit)")
	fs.DurationVar(&c.bodyTimeout, "http-body-timeout", server.DefaultBodyTimeout, "over HTTP, how long a request's body may take to arrive once its headers have")
	fs.StringVar(&c.stateKey, "state-key-file", "", "a `file` holding the secret (32 bytes or more) that seals the questions tools put to a person; replicas behind one load balancer must share it (default: a random key per process)")
	fs.StringVar(&c.auditLog, "audit-log", "", "append the audit trail to `file` (default: stderr)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics on `addr` (its own listener, without tokens: keep it where only the scraper reaches it)")
	fs.StringVar(&c.otlpEndpoint, "otlp-endpoint", "", "export OpenTelemetry spans of every call to this OTLP/HTTP `url` (such as http://collector:4318/v1/traces); default: none are sent")
	fs.DurationVar(&c.drainTimeout, "drain-timeout", 20*time.Second, "over HTTP, on SIGTERM, how long calls in flight may take to finish before they are cancelled and answered transient")
	fs.StringVar(&c.identity, "identity", server.DefaultCaller, "caller identity of calls over stdio, and over HTTP without tokens")
	c.tools.flags(fs)
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to `file` (for diagnosis)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "serve: unexpected argument %q\n", fs.Arg(0))
		return nil, errUsage
	}
	return &c, nil
}

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	c, err := parseServe(args, os.Stdout, stderr)
	if err != nil {
		return err
	}
	var protocol *os.File
	if c.httpAddr == "" {
		// Before anything else can print: stdout is the protocol's alone.
		if protocol, err = server.TakeStdout(); err != nil {
			return err
		}
	}
	wsOpts := workspace.Options{Operator: c.identity}
	if !heapfloor.Tuned() {
		// Unless the operator tuned the collector: see docs/perf.md.
		defer heapfloor.Start(heapfloor.Default)()
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	var m *metrics.Metrics
	logHandler := slog.Handler(slog.NewJSONHandler(stderr, nil))
	if c.metricsAddr != "" {
		m = metrics.New(metrics.Options{Callers: cfg.identities(c.identity)})
		logHandler = m.LogHandler(logHandler)
	}
	logger := slog.New(logHandler)
	var (
		bearer   *server.BearerAuth
		resource *oauth.ResourceServer
	)
	if c.httpAddr != "" {
		if bearer, resource, err = httpAuth(ctx, c, cfg); err != nil {
			return err
		}
	}
	wsOpts.Logger = logger
	reg, err := workspace.Open(cfg.Config, wsOpts)
	if err != nil {
		return err
	}
	defer reg.Close()
	families, err := c.tools.families(cfg.Toolsets)
	if err != nil {
		return err
	}
	opts := server.Options{
		Logger: logger, Caller: c.identity, Authorize: toolkit.Authorizer(reg),
		Families: toolkit.Names(families), Visible: toolkit.Visible(reg),
		// Generated by go generate, so that start-up does not reflect
		// the tools' types (schemas --check fails when they are stale).
		Schemas: generatedSchemas(),
	}
	if c.httpAddr != "" {
		opts.MaxCallsPerCaller = c.maxCalls
	}
	if c.stateKey != "" {
		if opts.StateKey, err = readStateKey(c.stateKey, logger); err != nil {
			return err
		}
	}
	if len(cfg.Workspaces) == 0 {
		// Every call would answer not_found: refuse, so that a host
		// launched with a bad configuration shows why in its log.
		return errNoWorkspace
	}
	if c.auditLog != "" {
		f, err := os.OpenFile(c.auditLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
		defer f.Close()
		opts.Audit = f
	}
	if m != nil {
		opts.Observers = append(opts.Observers, m.Middleware)
		stop, err := serveMetrics(c.metricsAddr, m, logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	if c.otlpEndpoint != "" {
		tp, err := newTracerProvider(c.otlpEndpoint, logger)
		if err != nil {
			return err
		}
		defer tp.Shutdown(context.WithoutCancel(ctx)) // sends the last batch
		opts.Observers = append(opts.Observers, tracing.Middleware(tp))
	}
	s := newServer(opts)
	if err := registerTools(s, reg, &c.tools, c.identity, logger); err != nil {
		return err
	}
	defer s.Close()
	if c.httpAddr != "" {
		return serveHTTP(ctx, s, c, bearer, resource, m, logger)
	}
	logger.Info("serving MCP on stdio", "version", version(), "tools", len(s.ToolNames()), "workspaces", len(reg.IDs(c.identity)))
	return s.Serve(ctx, os.Stdin, protocol)
}

// readStateKey reads the secret of --state-key-file: the file's bytes,
// without a final newline.
func readStateKey(name string, logger *slog.Logger) ([]byte, error) {
	key, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("--state-key-file: %w", err)
	}
	key = bytes.TrimRight(key, "\r\n")
	if len(key) < 32 {
		return nil, fmt.Errorf("--state-key-file %s: %d bytes; want 32 or more (head -c 32 /dev/urandom | base64 > FILE makes one)", name, len(key))
	}
	if fi, err := os.Stat(name); err == nil && fi.Mode().Perm()&0o077 != 0 {
		logger.Warn("the state key file can be read by other users", "file", name, "mode", fi.Mode().Perm().String())
	}
	return key, nil
}

// errNoWorkspace is serve's refusal to serve nothing.
var errNoWorkspace = errors.New("serve: no workspace to serve: give --workspace ID=PATH (repeatable) or a --config file that lists workspaces (repo-mcp serve -h says more)")

// loadConfig reads --config and adds the --workspace flags to it.
func loadConfig(c *serveConfig) (fileConfig, error) {
	var cfg fileConfig
	if c.configFile != "" {
		f, err := os.Open(c.configFile)
		if err != nil {
			return cfg, fmt.Errorf("--config: %w", err)
		}
		cfg, err = decodeConfig(f)
		f.Close()
		if err != nil {
			return cfg, fmt.Errorf("--config %s: %w", c.configFile, err)
		}
	}
	for _, spec := range c.workspaces {
		w, err := workspace.ParseWorkspaceFlag(spec)
		if err != nil {
			return cfg, fmt.Errorf("--workspace %s: %w", spec, err)
		}
		cfg.Workspaces = append(cfg.Workspaces, w)
	}
	return cfg, cfg.validate()
}

// httpAuth decides how HTTP callers say who they are: with the configured
// tokens or OAuth access tokens if there are any. Without either, every
// call is the operator's, which only a loopback address may offer.
func httpAuth(ctx context.Context, c *serveConfig, cfg fileConfig) (*server.BearerAuth, *oauth.ResourceServer, error) {
	host, _, err := net.SplitHostPort(c.httpAddr)
	if err != nil {
		return nil, nil, fmt.Errorf("--http %q: %w", c.httpAddr, err)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		loopback = true
	}
	authenticated := len(cfg.Tokens) > 0 || cfg.OAuth != nil
	switch {
	case !loopback && !c.allowRemote:
		return nil, nil, fmt.Errorf("--http %q is not a loopback address; add --allow-remote to serve beyond this machine", c.httpAddr)
	case !loopback && !authenticated:
		return nil, nil, fmt.Errorf("--allow-remote needs tokens or oauth in --config: callers beyond this machine must say who they are (repo-mcp token NAME makes a token)")
	case !authenticated:
		return nil, nil, nil
	}
	static := tokenVerifier(cfg.Tokens)
	if cfg.OAuth == nil {
		return &server.BearerAuth{Verify: static}, nil, nil
	}
	o := cfg.OAuth
	rs, err := oauth.New(ctx, oauth.Config{Resource: o.Resource, Issuer: o.Issuer, JWKSURL: o.JWKSURL, IdentityClaim: o.IdentityClaim, Scopes: o.Scopes})
	if err != nil {
		return nil, nil, err
	}
	a := rs.BearerAuth()
	a.Verify = func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if !strings.HasPrefix(token, tokenPrefix) {
			return rs.Verify(ctx, token, r)
		}
		info, err := static(ctx, token, r)
		if err == nil {
			info.Scopes = o.Scopes // the operator's own tokens need no scope
		}
		return info, err
	}
	return a, rs, nil
}

// newServer returns the repo-mcp server with no tools.
func newServer(opts server.Options) *server.Server {
	return server.New(server.Info{
		Name:    "repo-mcp",
		Title:   "repo-mcp",
		Version: version(),
		Instructions: "Read-only and reviewed access to Git repositories. " +
			"Every read names a workspace_id and is pinned to a revision.",
	}, opts)
}

func serveHTTP(ctx context.Context, s *server.Server, c *serveConfig, bearer *server.BearerAuth, resource *oauth.ResourceServer, m *metrics.Metrics, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", c.httpAddr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	hopts := server.HTTPOptions{Auth: bearer, AllowedHosts: c.hosts, BodyTimeout: c.bodyTimeout}
	if host, _, _ := net.SplitHostPort(c.httpAddr); c.allowRemote && host != "" && !net.ParseIP(host).IsUnspecified() {
		hopts.AllowedHosts = append(hopts.AllowedHosts, host)
	}
	if resource != nil {
		// Clients reach the server by its resource URL, and find the
		// authorization server through the metadata.
		hopts.AllowedHosts = append(hopts.AllowedHosts, resource.Host())
		for _, path := range resource.MetadataPaths() {
			mux.Handle(path, resource.MetadataHandler())
		}
	}
	var mcpHandler http.Handler = s.HTTPHandler(hopts)
	if m != nil {
		mcpHandler = m.HTTPRefusals(mcpHandler)
	}
	mux.Handle("/mcp", mcpHandler)
	health(mux, s)
	hs := &http.Server{
		Handler: boundBodies(mux, c.bodyTimeout),
		// A client that sends its headers slowly, or keeps an idle
		// connection, does not hold it. There is no ReadTimeout: net/http
		// would cancel a long call's context when it passed; bodies are
		// bounded per request instead (boundBodies, and /mcp's handler).
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	logger.Info("serving MCP over HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "version", version(), "bearer_tokens", bearer != nil, "oauth", resource != nil)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return drain(s, hs, c.drainTimeout, logger)
	}
}

// drain stops an HTTP server gracefully (SIGTERM, or SIGINT): it stops
// accepting connections and reports not ready at once, lets the calls in
// flight finish within bound, then cancels the rest, which are answered
// transient so that their clients retry on another replica, and closes
// what is left once they are answered.
func drain(s *server.Server, hs *http.Server, bound time.Duration, logger *slog.Logger) error {
	start := time.Now()
	logger.Info("draining", "bound", bound)
	shutdown := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), bound+5*time.Second)
		defer cancel()
		shutdown <- hs.Shutdown(ctx) // waits for the answers, cancelled ones included
	}()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cancelled := s.Drain(ctx)
	err := <-shutdown
	if err != nil {
		hs.Close()
	}
	logger.Info("drained", "cancelled_calls", cancelled, "duration", time.Since(start), "error", err)
	return nil
}

// health serves the probes of load balancers and orchestrators. They
// need no token and say nothing about the repositories:
//
//	/livez, /healthz     the process is up and answers
//	/readyz, /healthz?ready
//	                     it should be sent calls: workspaces open, warm-up
//	                     (--warm) done, not draining
func health(mux *http.ServeMux, s *server.Server) {
	live := func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") }
	ready := func(w http.ResponseWriter, _ *http.Request) {
		if err := s.Ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	}
	mux.HandleFunc("GET /livez", live)
	mux.HandleFunc("GET /readyz", ready)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("ready") {
			ready(w, r)
			return
		}
		live(w, r)
	})
}

// boundBodies gives every request with a body the time d for it to
// arrive, whichever handler reads it, or none does (net/http reads what
// is left of a small body after the handler, to reuse the connection).
// /mcp's handler takes the deadline over and ends it once the body is in,
// so a long call is not cut. Requests without a body are left alone: a
// deadline would cancel a stream's context when it passed.
func boundBodies(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}

// serveMetrics serves m at /metrics on its own listener, and returns what
// stops it.
func serveMetrics(addr string, m *metrics.Metrics, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	logger.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	go hs.Serve(ln)
	return func() { hs.Close() }, nil
}
