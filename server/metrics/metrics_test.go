package metrics

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/exposition.golden")

// fakeProc writes testdata/proc.txtar's files to a directory and returns it.
func fakeProc(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/proc.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		name := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// counted returns metrics with every family of ours counted in, through
// the log records the tools write and the calls the middleware makes.
func counted(t *testing.T) *Metrics {
	m := New(Options{Callers: []string{"alice"}, proc: fakeProc(t)})
	logger := slog.New(m.LogHandler(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})))
	logger.Debug(symbolBuilt)
	logger.Info(symbolLoaded)
	logger.Info(textBuilt, "duration", 300*time.Millisecond, "bytes", int64(4096))
	logger.Info(textBuilt, "duration", time.Hour, "bytes", int64(1))
	logger.Info(patchApply, "target", "worktree", "outcome", "applied")
	logger.Info(patchApply, "outcome", "input_required")
	logger.Info(patchApply, "target", "worktree") // no outcome: not counted
	for _, d := range []float64{0.0005, 0.001, 0.02, 400} {
		m.latency.observe(d, "read_file")
	}
	m.calls.add(1, "read_file", "read_only", "ok")
	m.calls.add(1, "read_file", "read_only", "ok")
	m.calls.add(1, "apply_patch", "destructive", "not_found")
	m.inFlight.add(1, m.caller("alice"))
	m.inFlight.add(1, m.caller("mallory"))
	m.inFlight.add(-1, m.caller("mallory"))
	m.refusals.add(1, "auth")
	// A value no caller can make today, to pin the escapes.
	m.refusals.add(1, "a \"quoted\\\" reason\nover two lines")
	return m
}

// TestExposition pins the text of our own series (golden file; -update
// rewrites it) and checks that the upstream parser reads back what was
// counted.
func TestExposition(t *testing.T) {
	m := counted(t)
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for _, f := range m.families() {
		f.write(w)
	}
	w.Flush()
	golden := filepath.Join("testdata", "exposition.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("exposition (-golden +got):\n%s", diff)
	}

	fams := parse(t, &buf)
	for _, tc := range []struct {
		series string
		want   float64
	}{
		{`repo_mcp_calls_total{effect="read_only",outcome="ok",tool="read_file"}`, 2},
		{`repo_mcp_calls_total{effect="destructive",outcome="not_found",tool="apply_patch"}`, 1},
		{`repo_mcp_calls_in_flight{caller="alice"}`, 1},
		{`repo_mcp_calls_in_flight{caller="other"}`, 0},
		{`repo_mcp_refusals_total{reason="auth"}`, 1},
		{`repo_mcp_refusals_total{reason="a \"quoted\\\" reason\nover two lines"}`, 1},
		{`repo_mcp_index_builds_total{index="symbol"}`, 1},
		{`repo_mcp_index_builds_total{index="text"}`, 2},
		{`repo_mcp_index_cache_hits_total{index="symbol"}`, 1},
		{`repo_mcp_index_build_bytes_total{index="text"}`, 4097},
		{`repo_mcp_applies_total{outcome="applied",target="worktree"}`, 1},
		{`repo_mcp_applies_total{outcome="input_required",target="branch"}`, 1},
	} {
		if got, ok := value(fams, tc.series); !ok || got != tc.want {
			t.Errorf("%s = %v (found %v); want %v", tc.series, got, ok, tc.want)
		}
	}
	h := fams["repo_mcp_call_duration_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 4 || math.Abs(h.GetSampleSum()-400.0215) > 1e-9 {
		t.Errorf("latency: count %d sum %v; want 4 and 400.0215", h.GetSampleCount(), h.GetSampleSum())
	}
	// Buckets are cumulative and "less or equal": 0.001 falls in the
	// first bucket, 400 only in +Inf.
	wantCum := map[float64]uint64{.001: 2, .005: 2, .01: 2, .025: 3, 300: 3, math.Inf(1): 4}
	for _, b := range h.GetBucket() {
		if want, ok := wantCum[b.GetUpperBound()]; ok && b.GetCumulativeCount() != want {
			t.Errorf("latency bucket le=%v: %d; want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	if n := len(h.GetBucket()); n != 16 {
		t.Errorf("latency has %d buckets; want 16", n)
	}
	bt := fams["repo_mcp_index_build_seconds"].GetMetric()[0].GetHistogram()
	if bt.GetSampleCount() != 2 || bt.GetSampleSum() != 3600.3 {
		t.Errorf("index build time: count %d sum %v; want 2 and 3600.3", bt.GetSampleCount(), bt.GetSampleSum())
	}
}

// TestScrape serves the whole exposition and parses it as a scraper
// would: every go_* and process_* series the Prometheus client's default
// collectors exposed is there with its type, and our series follow.
func TestScrape(t *testing.T) {
	m := counted(t)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); expfmt.ResponseFormat(rec.Header()) != expfmt.NewFormat(expfmt.TypeTextPlain) {
		t.Errorf("Content-Type %q is not the text format's", ct)
	}
	body := rec.Body.String()
	fams := parse(t, strings.NewReader(body))
	want := map[string]dto.MetricType{
		"go_gc_duration_seconds":               dto.MetricType_SUMMARY,
		"go_gc_gogc_percent":                   dto.MetricType_GAUGE,
		"go_gc_gomemlimit_bytes":               dto.MetricType_GAUGE,
		"go_goroutines":                        dto.MetricType_GAUGE,
		"go_info":                              dto.MetricType_GAUGE,
		"go_memstats_alloc_bytes":              dto.MetricType_GAUGE,
		"go_memstats_alloc_bytes_total":        dto.MetricType_COUNTER,
		"go_memstats_buck_hash_sys_bytes":      dto.MetricType_GAUGE,
		"go_memstats_frees_total":              dto.MetricType_COUNTER,
		"go_memstats_gc_sys_bytes":             dto.MetricType_GAUGE,
		"go_memstats_heap_alloc_bytes":         dto.MetricType_GAUGE,
		"go_memstats_heap_idle_bytes":          dto.MetricType_GAUGE,
		"go_memstats_heap_inuse_bytes":         dto.MetricType_GAUGE,
		"go_memstats_heap_objects":             dto.MetricType_GAUGE,
		"go_memstats_heap_released_bytes":      dto.MetricType_GAUGE,
		"go_memstats_heap_sys_bytes":           dto.MetricType_GAUGE,
		"go_memstats_last_gc_time_seconds":     dto.MetricType_GAUGE,
		"go_memstats_mallocs_total":            dto.MetricType_COUNTER,
		"go_memstats_mcache_inuse_bytes":       dto.MetricType_GAUGE,
		"go_memstats_mcache_sys_bytes":         dto.MetricType_GAUGE,
		"go_memstats_mspan_inuse_bytes":        dto.MetricType_GAUGE,
		"go_memstats_mspan_sys_bytes":          dto.MetricType_GAUGE,
		"go_memstats_next_gc_bytes":            dto.MetricType_GAUGE,
		"go_memstats_other_sys_bytes":          dto.MetricType_GAUGE,
		"go_memstats_stack_inuse_bytes":        dto.MetricType_GAUGE,
		"go_memstats_stack_sys_bytes":          dto.MetricType_GAUGE,
		"go_memstats_sys_bytes":                dto.MetricType_GAUGE,
		"go_sched_gomaxprocs_threads":          dto.MetricType_GAUGE,
		"go_threads":                           dto.MetricType_GAUGE,
		"process_cpu_seconds_total":            dto.MetricType_COUNTER,
		"process_max_fds":                      dto.MetricType_GAUGE,
		"process_network_receive_bytes_total":  dto.MetricType_COUNTER,
		"process_network_transmit_bytes_total": dto.MetricType_COUNTER,
		"process_open_fds":                     dto.MetricType_GAUGE,
		"process_resident_memory_bytes":        dto.MetricType_GAUGE,
		"process_start_time_seconds":           dto.MetricType_GAUGE,
		"process_virtual_memory_bytes":         dto.MetricType_GAUGE,
		"process_virtual_memory_max_bytes":     dto.MetricType_GAUGE,
		"repo_mcp_calls_total":                 dto.MetricType_COUNTER,
		"repo_mcp_call_duration_seconds":       dto.MetricType_HISTOGRAM,
		"repo_mcp_calls_in_flight":             dto.MetricType_GAUGE,
		"repo_mcp_refusals_total":              dto.MetricType_COUNTER,
		"repo_mcp_index_builds_total":          dto.MetricType_COUNTER,
		"repo_mcp_index_build_seconds":         dto.MetricType_HISTOGRAM,
		"repo_mcp_index_build_bytes_total":     dto.MetricType_COUNTER,
		"repo_mcp_index_cache_hits_total":      dto.MetricType_COUNTER,
		"repo_mcp_applies_total":               dto.MetricType_COUNTER,
	}
	got := map[string]dto.MetricType{}
	for name, f := range fams {
		got[name] = f.GetType()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("families and types (-want +got):\n%s", diff)
	}
	// The scraper does not need it, but the names come in order, as the
	// Prometheus client wrote them, so that two scrapes diff cleanly.
	var names []string
	for line := range strings.Lines(body) {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			names = append(names, strings.Fields(name)[0])
		}
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("%s comes before %s", names[i-1], names[i])
		}
	}
	if v, _ := value(fams, `go_info{version="`+runtime.Version()+`"}`); v != 1 {
		t.Errorf("go_info is not 1 for this Go")
	}
	if v, _ := value(fams, "go_goroutines"); v < 1 {
		t.Errorf("go_goroutines = %v", v)
	}
}

// TestProcess reads the made-up /proc of testdata/proc.txtar.
func TestProcess(t *testing.T) {
	m := New(Options{proc: fakeProc(t)})
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeProcess(w, m.proc)
	w.Flush()
	fams := parse(t, &buf)
	for _, tc := range []struct {
		series string
		want   float64
	}{
		{"process_cpu_seconds_total", 3},
		{"process_start_time_seconds", 1700000010},
		{"process_virtual_memory_bytes", 123456789},
		{"process_resident_memory_bytes", float64(10 * os.Getpagesize())},
		{"process_network_receive_bytes_total", 1300},
		{"process_network_transmit_bytes_total", 2040},
		{"process_open_fds", 3},
	} {
		if got, ok := value(fams, tc.series); !ok || got != tc.want {
			t.Errorf("%s = %v (found %v); want %v", tc.series, got, ok, tc.want)
		}
	}

	// Without /proc, the series read from it are left out, not zero.
	buf.Reset()
	writeProcess(w, t.TempDir())
	w.Flush()
	for name := range parse(t, &buf) {
		if name != "process_max_fds" && name != "process_virtual_memory_max_bytes" {
			t.Errorf("%s is written without /proc", name)
		}
	}
}

func TestProcStatRefusesDamage(t *testing.T) {
	for name, stat := range map[string]string{
		"no command": "4242 repo-mcp S 1",
		"cut":        "4242 (repo-mcp) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50",
		"not number": "4242 (repo-mcp) S 1 4242 4242 0 -1 4194560 100 0 0 0 x 50 0 0 20 0 7 0 1000 123456789 10 1 1 1",
	} {
		proc := fakeProc(t)
		if err := os.WriteFile(filepath.Join(proc, "self", "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
		if st, err := readProcStat(proc); err == nil {
			t.Errorf("%s: read %+v; want an error", name, st)
		}
	}
}

// parse reads an exposition with the upstream parser.
func parse(t *testing.T, r io.Reader) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(r)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// value returns the value of a counter or gauge series, written
// name{label="value",...} with its labels in name order.
func value(fams map[string]*dto.MetricFamily, s string) (float64, bool) {
	name, _, _ := strings.Cut(s, "{")
	for _, m := range fams[name].GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+strconv.Quote(l.GetValue()))
		}
		id := name
		if len(ls) > 0 {
			id += "{" + strings.Join(ls, ",") + "}"
		}
		if id == s {
			return m.GetCounter().GetValue() + m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}
