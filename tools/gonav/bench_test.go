package gonav

import (
	"os"
	"slices"
	"testing"
	"time"
)

// The benchmarks read the repository GONAV_BENCH_CORPUS names, with a
// second commit that changes 20 files, as bench/gonav.sh builds it:
// go-git, or with GONAV_BENCH_STD=1 the standard library (GOROOT/src
// committed alone). Each is meant for one op in a new process
// (-test.benchtime 1x), so that the process's wall time and peak RSS are
// those of the op.

// benchSetup is a corpus and what the benchmarks ask of it.
type benchSetup struct {
	dir     string
	symbol  string       // the first references query's target
	queries []goplsQuery // the warm queries: the gopls comparison's
}

func benchCorpus(b *testing.B) benchSetup {
	dir := os.Getenv("GONAV_BENCH_CORPUS")
	if dir == "" {
		b.Skip("set GONAV_BENCH_CORPUS (bench/gonav.sh builds it)")
	}
	if os.Getenv("GONAV_BENCH_STD") != "" {
		return benchSetup{dir: dir, symbol: "strings.Builder", queries: stdQueries}
	}
	return benchSetup{dir: dir, symbol: "plumbing.NewHash", queries: goplsQueries}
}

// benchOptions are the service's options in benchmarks: the standard
// library's first load takes minutes on a busy machine.
func benchOptions(b *testing.B) Options {
	opts := testOptions(b)
	opts.CallTimeout = time.Hour
	return opts
}

// BenchmarkFirstReferences is a process's first answer: export, go list
// in the sandbox, type-checking, then the references of the corpus's
// symbol (plumbing.NewHash; strings.Builder in the standard library).
// With GONAV_BENCH_CACHE, the cache directory is that one, which an
// earlier process may have filled: the export and the dependencies'
// type information are then read from disk.
func BenchmarkFirstReferences(b *testing.B) {
	bc := benchCorpus(b)
	opts := benchOptions(b)
	if cache := os.Getenv("GONAV_BENCH_CACHE"); cache != "" {
		opts.CacheDir = cache
	}
	for b.Loop() {
		c, _ := serve(b, bc.dir, opts)
		out := navigate(b, c, map[string]any{"relation": References, "symbol": bc.symbol, "revision": "HEAD~1"})
		if out.Total == 0 {
			b.Fatal("no references")
		}
	}
}

// BenchmarkWarmQueries answers the 30 queries of the corpus's gopls
// comparison on a loaded revision, each op once, and reports their latencies' median,
// 99th percentile and maximum over all ops.
func BenchmarkWarmQueries(b *testing.B) {
	bc := benchCorpus(b)
	c, _ := serve(b, bc.dir, benchOptions(b))
	navigate(b, c, map[string]any{"relation": Definition, "symbol": bc.symbol, "revision": "HEAD~1"})
	var took []time.Duration
	for b.Loop() {
		for _, q := range bc.queries {
			start := time.Now()
			navigate(b, c, map[string]any{"relation": q.relation, "symbol": q.symbol, "revision": "HEAD~1"})
			took = append(took, time.Since(start))
			if testing.Verbose() {
				b.Logf("%s %s: %v", q.relation, q.symbol, took[len(took)-1])
			}
		}
	}
	slices.Sort(took)
	ms := func(q float64) float64 {
		return float64(took[min(int(q*float64(len(took))), len(took)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(ms(1), "max-ms")
}

// BenchmarkSecondRevision loads HEAD~1, then HEAD, which changes 20
// files, and reports the second load's time as a share of the first's.
func BenchmarkSecondRevision(b *testing.B) {
	bc := benchCorpus(b)
	for b.Loop() {
		c, _ := serve(b, bc.dir, benchOptions(b))
		first := navigate(b, c, map[string]any{"relation": Definition, "symbol": bc.symbol, "revision": "HEAD~1"})
		second := navigate(b, c, map[string]any{"relation": Definition, "symbol": bc.symbol, "revision": "HEAD"})
		b.ReportMetric(float64(first.Precision.Load.DurationMS), "first-ms")
		b.ReportMetric(float64(second.Precision.Load.DurationMS), "second-ms")
		b.ReportMetric(float64(second.Precision.Load.DurationMS)/float64(first.Precision.Load.DurationMS)*100, "second-%")
		b.ReportMetric(float64(second.Precision.Load.Checked), "second-checked")
		b.ReportMetric(float64(second.Precision.Load.Packages), "packages")
	}
}
