// Package benchlat times benchmark operations one by one and reports the
// two metrics that bench/ratio.sh compares between variants run side by
// side: "calls/s" and "p50-µs" (the median latency).
//
//	func BenchmarkCall(b *testing.B) {
//		benchlat.Measure(b, func(i int) error { return call(i) })
//	}
package benchlat

import (
	"slices"
	"testing"
	"time"
)

// Measure runs op for each iteration of b.Loop, timing each call, and
// reports calls per second, the median latency and the 99th percentile. An error fails the
// benchmark.
func Measure(b *testing.B, op func(i int) error) {
	b.Helper()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	Report(b, lat)
}

// Report reports the calls per second that the latencies add up to, their
// median and their 99th percentile, for benchmarks that time their
// operations themselves.
func Report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	b.ReportMetric(float64(len(sorted))/total.Seconds(), "calls/s")
	b.ReportMetric(float64(sorted[len(sorted)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(sorted[len(sorted)*99/100].Nanoseconds())/1e3, "p99-µs")
}
