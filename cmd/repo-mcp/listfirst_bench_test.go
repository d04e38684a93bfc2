package main

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// BenchmarkListFilesFirst: the first full listing of a new server process
// (started and past its handshake before the timer runs), paged by 10 000:
// "ours" without sizes (list_files' default), "ours-sizes" with them,
// against one git ls-tree -r -l ("git", which prints sizes too, the
// baseline of issue 17's target) and git ls-tree -r ("git-nosizes").
// bench/startup.sh prints the ratios. "srv-cpu-ms" is the server's CPU time
// during the listing (from /proc, in 10 ms ticks: a mean over the rounds;
// 0 where there is no /proc), "srv-faults" its minor page faults meanwhile:
// a new process's heap is fresh memory, and each page of it faults once.
func BenchmarkListFilesFirst(b *testing.B) {
	dir, _ := corpus(b)
	for _, v := range listVariants(b) {
		b.Run(v.name, func(b *testing.B) {
			var lat []time.Duration
			var cpu time.Duration
			var faults int64
			for b.Loop() {
				b.StopTimer()
				c := startBinary(b, v.bin, dir)
				before, _ := processCPU(c.PID())
				faultsBefore, _ := minorFaults(c.PID())
				b.StartTimer()
				start := time.Now()
				if err := listAll(c, v.sizes); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				b.StopTimer()
				after, _ := processCPU(c.PID())
				cpu += after - before
				faultsAfter, _ := minorFaults(c.PID())
				faults += faultsAfter - faultsBefore
				c.Close()
				b.StartTimer()
			}
			benchlat.Report(b, lat)
			b.ReportMetric(float64(cpu.Milliseconds())/float64(len(lat)), "srv-cpu-ms")
			b.ReportMetric(float64(faults)/float64(len(lat)), "srv-faults")
		})
	}
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error { return runQuiet("git", dir, "ls-tree", "-r", "-l", "HEAD") })
	})
	b.Run("git-nosizes", func(b *testing.B) {
		benchlat.Measure(b, func(int) error { return runQuiet("git", dir, "ls-tree", "-r", "HEAD") })
	})
}

// listVariant is a binary listing with sizes or without.
type listVariant struct {
	name, bin string
	sizes     bool
}

// listVariants are this tree's binary without sizes and with them and,
// with REPO_MCP_BENCH_BASE, the base binary as it lists by default. A
// base from before list_files took sizes refuses the argument (its schema
// admits no other members) and lists with sizes: compare it with
// "ours-sizes".
func listVariants(b *testing.B) []listVariant {
	var out []listVariant
	for _, v := range builds(b) {
		out = append(out, listVariant{name: v.name, bin: v.bin})
		if v.name == "ours" {
			out = append(out, listVariant{name: "ours-sizes", bin: v.bin, sizes: true})
		}
	}
	return out
}

// minorFaults is the count of minor page faults of process pid, from
// /proc/PID/stat; false where there is no /proc.
func minorFaults(pid int) (int64, bool) {
	// minflt is the 8th field after the command.
	fields, ok := procStat(pid)
	if !ok || len(fields) < 8 {
		return 0, false
	}
	n, err := strconv.ParseInt(fields[7], 10, 64)
	return n, err == nil
}

// listAll lists the whole tree, 10 000 entries a page, with sizes if
// asked.
func listAll(c *client.Conn, sizes bool) error {
	args := map[string]any{"workspace_id": "go", "recursive": true, "limit": 10000}
	if sizes {
		args["sizes"] = true
	}
	for {
		res, err := c.Call(context.Background(), "list_files", args)
		if err != nil {
			return fmt.Errorf("list_files: %w", err)
		}
		if res.IsError {
			return fmt.Errorf("list_files: error result %s", res.StructuredContent)
		}
		next := nextCursor(res.StructuredContent)
		if next == "" {
			return nil
		}
		args["cursor"] = next
	}
}
