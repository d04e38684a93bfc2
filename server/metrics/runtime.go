package metrics

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// The go_* series the Prometheus Go client's default collector exposed
// before this package wrote its own exposition, with the same names, types
// and help, so that dashboards and alerts keep working. They are read at
// each scrape: runtime.ReadMemStats stops the world for a few
// microseconds, which a scrape every few seconds does not notice.
var memStats = []struct {
	name, help string
	kind       kind
	value      func(*runtime.MemStats) float64
}{
	{"go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.Alloc) }},
	{"go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.", counter, func(m *runtime.MemStats) float64 { return float64(m.TotalAlloc) }},
	{"go_memstats_buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.BuckHashSys) }},
	{"go_memstats_frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.", counter, func(m *runtime.MemStats) float64 { return float64(m.Frees) }},
	{"go_memstats_gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.GCSys) }},
	{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapAlloc) }},
	{"go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapIdle) }},
	{"go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes", gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapInuse) }},
	{"go_memstats_heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.", gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapObjects) }},
	{"go_memstats_heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapReleased) }},
	{"go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.HeapSys) }},
	{"go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", gauge, func(m *runtime.MemStats) float64 { return float64(m.LastGC) / 1e9 }},
	{"go_memstats_mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.", counter, func(m *runtime.MemStats) float64 { return float64(m.Mallocs) }},
	{"go_memstats_mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.MCacheInuse) }},
	{"go_memstats_mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.MCacheSys) }},
	{"go_memstats_mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.MSpanInuse) }},
	{"go_memstats_mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.MSpanSys) }},
	{"go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.NextGC) }},
	{"go_memstats_other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.OtherSys) }},
	{"go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.StackInuse) }},
	{"go_memstats_stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.", gauge, func(m *runtime.MemStats) float64 { return float64(m.StackSys) }},
	{"go_memstats_sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.", gauge, func(m *runtime.MemStats) float64 { return float64(m.Sys) }},
}

// writeGo writes the Go runtime's series.
func writeGo(w *bufio.Writer) {
	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5) // 0, 0.25, 0.5, 0.75, 1
	debug.ReadGCStats(&gc)
	writeHeader(w, "go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", "summary")
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		writeSample(w, "go_gc_duration_seconds", nil, nil, "quantile", q, gc.PauseQuantiles[i].Seconds())
	}
	writeSample(w, "go_gc_duration_seconds_sum", nil, nil, "", "", gc.PauseTotal.Seconds())
	writeSample(w, "go_gc_duration_seconds_count", nil, nil, "", "", float64(gc.NumGC))

	writeValue(w, "go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function.", gauge, gcPercent())
	writeValue(w, "go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function.", gauge,
		float64(debug.SetMemoryLimit(-1))) // a negative limit reads it without changing it
	writeValue(w, "go_goroutines", "Number of goroutines that currently exist.", gauge, float64(runtime.NumGoroutine()))
	writeHeader(w, "go_info", "Information about the Go environment.", gauge)
	writeSample(w, "go_info", []string{"version"}, []string{runtime.Version()}, "", "", 1)

	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	for _, s := range memStats {
		writeValue(w, s.name, s.help, s.kind, s.value(&m))
	}
	writeValue(w, "go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously.", gauge,
		float64(runtime.GOMAXPROCS(0)))
	threads, _ := runtime.ThreadCreateProfile(nil)
	writeValue(w, "go_threads", "Number of OS threads created.", gauge, float64(threads))
}

// gcPercent returns the GC's target percentage as GOGC sets it (-1 for
// off; the runtime takes 100 for a value it cannot read). Reading it from
// the runtime would link runtime/metrics, or set it to read it back;
// nothing in the server calls debug.SetGCPercent, so the environment is
// the setting.
func gcPercent() float64 {
	v := os.Getenv("GOGC")
	if v == "off" {
		return -1
	}
	if n, err := strconv.Atoi(v); err == nil {
		return float64(n)
	}
	return 100
}

// writeValue writes a metric of one series and no labels.
func writeValue(w *bufio.Writer, name, help string, k kind, v float64) {
	writeHeader(w, name, help, k)
	writeSample(w, name, nil, nil, "", "", v)
}
