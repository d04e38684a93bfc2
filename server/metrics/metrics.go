// Package metrics exposes what a repo-mcp server does as Prometheus
// metrics: calls by tool, effect and outcome, their latency, the calls in
// flight per caller, refusals by reason, index builds and apply outcomes,
// beside the Go runtime's and the process's series (go_*, process_*).
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
//
// The exposition is written here, in the text format (version 0.0.4),
// rather than by the Prometheus Go client: the client's package
// initialization (its collectors, procfs, protobuf descriptors, YAML) was
// a tenth of the CPU of every repo-mcp process, metrics served or not.
package metrics

import (
	"bufio"
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
)

// Options configure the metrics.
type Options struct {
	// Callers are the identities that get their own in-flight label
	// value; others are counted as "other", so that identities from an
	// OAuth issuer cannot grow the label set without bound.
	Callers []string

	// proc is where /proc is; tests point it at a made-up one.
	proc string
}

// Metrics holds a server's metrics.
type Metrics struct {
	callers []string
	proc    string

	calls      *family
	latency    *family
	inFlight   *family
	refusals   *family
	builds     *family
	buildTime  *family
	buildBytes *family
	cacheHits  *family
	applies    *family
}

// New returns the metrics, none counted yet.
func New(opts Options) *Metrics {
	m := &Metrics{
		callers: slices.Clone(opts.Callers),
		proc:    cmp.Or(opts.proc, "/proc"),
		calls: newFamily("repo_mcp_calls_total",
			"Tool calls answered, by tool, effect class (read_only, write, destructive) and outcome (ok or the error class).",
			counter, "tool", "effect", "outcome"),
		latency: newHistogram("repo_mcp_call_duration_seconds", "Time from a call's arrival to its answer, by tool.",
			[]float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}, "tool"),
		inFlight: newFamily("repo_mcp_calls_in_flight",
			"Tool calls in progress, by caller (configured identities; any other is \"other\").",
			gauge, "caller"),
		refusals: newFamily("repo_mcp_refusals_total",
			"Requests refused before any tool ran, by reason: auth (policy), token (HTTP authentication), limit (calls in progress per caller), body_timeout, draining.",
			counter, "reason"),
		builds: newFamily("repo_mcp_index_builds_total", "Index builds, by index (symbol, text).", counter, "index"),
		buildTime: newHistogram("repo_mcp_index_build_seconds", "Duration of index builds, by index, where the index reports it (text).",
			exponentialBuckets(0.05, 2, 14), "index"),
		buildBytes: newFamily("repo_mcp_index_build_bytes_total", "Bytes of content indexed, by index, where the index reports it (text).", counter, "index"),
		cacheHits:  newFamily("repo_mcp_index_cache_hits_total", "Indexes loaded from the on-disk cache instead of built, by index (symbol).", counter, "index"),
		applies: newFamily("repo_mcp_applies_total",
			"apply_patch outcomes, by target (branch, worktree) and outcome (applied, already_applied, input_required or the error class).",
			counter, "target", "outcome"),
	}
	return m
}

// exponentialBuckets returns n bucket bounds, the first start, each
// factor times the one before.
func exponentialBuckets(start, factor float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// contentType is the Prometheus text exposition format's, version 0.0.4,
// which every Prometheus-compatible scraper reads.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the metrics in the Prometheus text format: the server's
// own, then the Go runtime's (go_*) and the process's (process_*).
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		bw := bufio.NewWriter(w)
		m.write(bw)
		bw.Flush()
	})
}

// write writes every metric, in the order of their names.
func (m *Metrics) write(w *bufio.Writer) {
	writeGo(w)
	writeProcess(w, m.proc)
	for _, f := range m.families() {
		f.write(w)
	}
}

// families returns the server's own metrics in the order of their names.
func (m *Metrics) families() []*family {
	return []*family{m.applies, m.latency, m.inFlight, m.calls, m.buildBytes, m.buildTime, m.builds, m.cacheHits, m.refusals}
}

// Middleware is a server observer ([server.Options.Observers]): it
// counts and times every call, refused or not.
func (m *Metrics) Middleware(next server.Handler) server.Handler {
	return func(ctx context.Context, req *server.Request) *server.Result {
		caller := m.caller(req.Caller)
		m.inFlight.add(1, caller)
		start := time.Now()
		res := next(ctx, req)
		m.inFlight.add(-1, caller)
		m.latency.observe(time.Since(start).Seconds(), req.Tool)
		outcome := "ok"
		if res.Err != nil {
			outcome = string(res.Err.Class)
		}
		m.calls.add(1, req.Tool, string(req.Effect()), outcome)
		if res.Refusal != "" {
			m.refusals.add(1, res.Refusal)
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
			m.refusals.add(1, "token")
		case http.StatusTooManyRequests:
			m.refusals.add(1, server.RefusedLimit)
		case http.StatusRequestTimeout:
			m.refusals.add(1, "body_timeout")
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
