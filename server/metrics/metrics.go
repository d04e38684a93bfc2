// Package metrics exposes what a repo-mcp server does as Prometheus
// metrics: calls by tool, effect and outcome, their latency, the calls in
// flight per caller, refusals by reason, index builds and apply outcomes.
//
//	m := metrics.New(metrics.Options{Callers: identities})
//	logger := slog.New(m.LogHandler(slog.NewJSONHandler(os.Stderr, nil)))
//	s := server.New(info, server.Options{Logger: logger, Observers: []server.Middleware{m.Middleware}})
//	http.Handle("/metrics", m.Handler())
//	http.Handle("/mcp", m.HTTPRefusals(s.HTTPHandler(hopts)))
//
// Every label is bounded: tool names, effect classes, error classes, the
// configured callers (any other identity is "other"), fixed reasons and
// index kinds. No path, workspace, revision, patch or request id is ever a
// label: those belong in the audit log.
//
// Index builds and applies are counted from the log records the tool
// packages already write for each of them ([Metrics.LogHandler]), so that
// neither the index engines nor the patch tools depend on a metrics
// library or on an interface for it.
package metrics

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/repo-mcp/repo-mcp/server"
)

// Options configure the metrics.
type Options struct {
	// Callers are the identities that get their own in-flight label
	// value; others are counted as "other", so that identities from an
	// OAuth issuer cannot grow the label set without bound.
	Callers []string
}

// Metrics holds a server's collectors, in a registry of its own.
type Metrics struct {
	reg     *prometheus.Registry
	callers []string

	calls      *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	inFlight   *prometheus.GaugeVec
	refusals   *prometheus.CounterVec
	builds     *prometheus.CounterVec
	buildTime  *prometheus.HistogramVec
	buildBytes *prometheus.CounterVec
	cacheHits  *prometheus.CounterVec
	applies    *prometheus.CounterVec
}

// New returns the metrics, registered with the Go runtime and process
// collectors.
func New(opts Options) *Metrics {
	m := &Metrics{
		reg:     prometheus.NewRegistry(),
		callers: slices.Clone(opts.Callers),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "repo_mcp_calls_total",
			Help: "Tool calls answered, by tool, effect class (read_only, write, destructive) and outcome (ok or the error class).",
		}, []string{"tool", "effect", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "repo_mcp_call_duration_seconds",
			Help:    "Time from a call's arrival to its answer, by tool.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"tool"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "repo_mcp_calls_in_flight",
			Help: "Tool calls in progress, by caller (configured identities; any other is \"other\").",
		}, []string{"caller"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "repo_mcp_refusals_total",
			Help: "Requests refused before any tool ran, by reason: auth (policy), token (HTTP authentication), limit (calls in progress per caller), body_timeout, draining.",
		}, []string{"reason"}),
		builds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "repo_mcp_index_builds_total",
			Help: "Index builds, by index (symbol, text).",
		}, []string{"index"}),
		buildTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "repo_mcp_index_build_seconds",
			Help:    "Duration of index builds, by index, where the index reports it (text).",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14),
		}, []string{"index"}),
		buildBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "repo_mcp_index_build_bytes_total",
			Help: "Bytes of content indexed, by index, where the index reports it (text).",
		}, []string{"index"}),
		cacheHits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "repo_mcp_index_cache_hits_total",
			Help: "Indexes loaded from the on-disk cache instead of built, by index (symbol).",
		}, []string{"index"}),
		applies: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "repo_mcp_applies_total",
			Help: "apply_patch outcomes, by target (branch, worktree) and outcome (applied, already_applied, input_required or the error class).",
		}, []string{"target", "outcome"}),
	}
	m.reg.MustRegister(m.calls, m.latency, m.inFlight, m.refusals, m.builds, m.buildTime, m.buildBytes, m.cacheHits, m.applies,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is where the metrics are registered, for a process that
// gathers them some other way, and for tests.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Middleware is a server observer ([server.Options.Observers]): it
// counts and times every call, refused or not.
func (m *Metrics) Middleware(next server.Handler) server.Handler {
	return func(ctx context.Context, req *server.Request) *server.Result {
		caller := m.caller(req.Caller)
		g := m.inFlight.WithLabelValues(caller)
		g.Inc()
		start := time.Now()
		res := next(ctx, req)
		g.Dec()
		m.latency.WithLabelValues(req.Tool).Observe(time.Since(start).Seconds())
		outcome := "ok"
		if res.Err != nil {
			outcome = string(res.Err.Class)
		}
		m.calls.WithLabelValues(req.Tool, string(req.Effect()), outcome).Inc()
		if res.Refusal != "" {
			m.refusals.WithLabelValues(res.Refusal).Inc()
		}
		return res
	}
}

func (m *Metrics) caller(identity string) string {
	if slices.Contains(m.callers, identity) {
		return identity
	}
	return "other"
}

// HTTPRefusals counts the requests h refuses before they become calls:
// a missing or bad token (401, 403), too many calls (429), a body too
// slow to arrive (408).
func (m *Metrics) HTTPRefusals(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		switch sw.status {
		case http.StatusUnauthorized, http.StatusForbidden:
			m.refusals.WithLabelValues("token").Inc()
		case http.StatusTooManyRequests:
			m.refusals.WithLabelValues(server.RefusedLimit).Inc()
		case http.StatusRequestTimeout:
			m.refusals.WithLabelValues("body_timeout").Inc()
		}
	})
}

// statusWriter remembers the status a handler wrote. It keeps the
// writer's other abilities (flushing an event stream, deadlines) through
// Unwrap, which http.ResponseController follows.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
