//go:build unix

package gonav

import (
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"syscall"
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
// earlier process may have filled: the export, the listing and the
// packages' type information and indexes are then read from disk. With
// GONAV_BENCH_FILL too, the op waits after its answer for the indexes
// the program builds in the background and their entries, as a process
// that outlives its first answer does: the cache is then full.
func BenchmarkFirstReferences(b *testing.B) {
	bc := benchCorpus(b)
	opts := benchOptions(b)
	if cache := os.Getenv("GONAV_BENCH_CACHE"); cache != "" {
		opts.CacheDir = cache
	}
	for b.Loop() {
		c, sv := serve(b, bc.dir, opts)
		out := navigate(b, c, map[string]any{"relation": References, "symbol": bc.symbol, "revision": "HEAD~1"})
		if out.Total == 0 {
			b.Fatal("no references")
		}
		writeHeapProfile(b)
		if os.Getenv("GONAV_BENCH_FILL") != "" {
			sv.loader.store.wait()
		}
	}
}

// BenchmarkWarmQueries answers the 30 queries of the corpus's gopls
// comparison on a loaded and indexed revision, each op once, and reports their latencies' median,
// 99th percentile and maximum over all ops.
func BenchmarkWarmQueries(b *testing.B) {
	bc := benchCorpus(b)
	c, sv := serve(b, bc.dir, benchOptions(b))
	// Warm: the load, then the method index, which prepareQueries builds
	// in the background and the first implementations query waits for,
	// and the indexes the first answer has built in the background.
	i := slices.IndexFunc(bc.queries, func(q goplsQuery) bool { return q.relation == Implementations })
	navigate(b, c, map[string]any{"relation": Implementations, "symbol": bc.queries[i].symbol, "revision": "HEAD~1"})
	sv.loader.store.wait()
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
		c, sv := serve(b, bc.dir, benchOptions(b))
		cpu0 := cpuTime(b)
		first := navigate(b, c, map[string]any{"relation": Definition, "symbol": bc.symbol, "revision": "HEAD~1"})
		cpu1 := cpuTime(b)
		// The first answer's background build of the indexes would
		// otherwise run during the second load, and count as its CPU.
		sv.loader.store.wait()
		cpu1 = cpuTime(b)
		stop := profileSecond(b)
		second := navigate(b, c, map[string]any{"relation": Definition, "symbol": bc.symbol, "revision": "HEAD"})
		cpu2 := cpuTime(b)
		stop()
		// CPU time varies less with the machine's load than wall time.
		b.ReportMetric(float64((cpu2 - cpu1).Milliseconds()), "second-cpu-ms")
		b.ReportMetric(float64(cpu2-cpu1)/float64(cpu1-cpu0)*100, "second-cpu-%")
		b.ReportMetric(float64(first.Precision.Load.DurationMS), "first-ms")
		b.ReportMetric(float64(second.Precision.Load.DurationMS), "second-ms")
		b.ReportMetric(float64(second.Precision.Load.DurationMS)/float64(first.Precision.Load.DurationMS)*100, "second-%")
		b.ReportMetric(float64(second.Precision.Load.Checked), "second-checked")
		b.ReportMetric(float64(second.Precision.Load.Packages), "packages")
	}
}

// profileSecond starts a CPU profile of the second load into the file
// GONAV_BENCH_PROFILE names, if it does, and returns what stops it: the
// first load would otherwise be nine tenths of the profile.
func profileSecond(b *testing.B) (stop func()) {
	path := os.Getenv("GONAV_BENCH_PROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime returns the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeHeapProfile writes a heap profile into the file
// GONAV_BENCH_MEMPROFILE names, if it does, after a collection: what
// the first answer holds live when it is given.
func writeHeapProfile(b *testing.B) {
	path := os.Getenv("GONAV_BENCH_MEMPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
