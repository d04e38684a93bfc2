package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// The benchmarks of this file read files of three sizes from a repository
// made for them (Go source from GOROOT, concatenated to 10 MB, and its
// first 100 KB and 1 KB, committed and packed), side by side with one
// long-running git cat-file --batch reading the same blob. bench/readlarge.sh
// prints the ratios.

// sizedFiles are the paths of the sized corpus and their sizes.
var sizedFiles = map[string]int{"big.go": 10 << 20, "mid.go": 100 << 10, "small.go": 1 << 10}

// sizedCorpus makes the repository of the sized files, for one benchmark:
// it lives in b's temporary directory, gone once b ends.
func sizedCorpus(b *testing.B) string {
	var src strings.Builder
	files, err := filepath.Glob(filepath.Join(runtimeGOROOT(b), "src", "net", "http", "*.go"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no Go source to build the corpus from: %v", err)
	}
	for i := 0; src.Len() < sizedFiles["big.go"]; i++ {
		data, err := os.ReadFile(files[i%len(files)])
		if err != nil {
			b.Fatal(err)
		}
		src.Write(data)
	}
	all := src.String()
	repo := gitfixture.New(b)
	content := map[string]gitfixture.File{}
	for path, size := range sizedFiles {
		cut := strings.LastIndexByte(all[:size], '\n') + 1
		content[path] = gitfixture.Text(all[:cut])
	}
	repo.Commit(b, "sized files", content)
	gitfixture.Git(b, repo.Dir, "gc", "-q")
	return repo.Dir
}

func runtimeGOROOT(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// readPages reads path in full through read_file's text pages of 1 MiB,
// each continuing at the last one's next_start_line, and returns the
// number of bytes read. Each result is released once read, as a caller
// paging through a file would.
func readPages(c *client.Conn, path string) (int, error) {
	args := map[string]any{"workspace_id": "go", "path": path, "max_bytes": 1 << 20}
	total := 0
	for {
		res, err := c.Call(context.Background(), "read_file", args)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s", res.Text())
		}
		if err != nil {
			return total, err
		}
		var out struct {
			Bytes         int `json:"bytes"`
			NextStartLine int `json:"next_start_line"`
		}
		err = json.Unmarshal(res.StructuredContent, &out)
		res.Release() // its page is read: the next is read into its buffer
		if err != nil {
			return total, err
		}
		total += out.Bytes
		if out.NextStartLine == 0 {
			return total, nil
		}
		args["start_line"] = out.NextStartLine
	}
}

// catFile returns a function that reads one blob through a long-running
// git cat-file --batch, as BenchmarkReadFile's git variant does.
func catFile(b *testing.B, dir string) func(path string) error {
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	out := bufio.NewReaderSize(outPipe, 1<<20)
	return func(p string) error {
		fmt.Fprintf(in, "HEAD:%s\n", p)
		header, err := out.ReadString('\n')
		if err != nil {
			return err
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return fmt.Errorf("cat-file: %q", header)
		}
		size, _ := strconv.Atoi(f[2])
		_, err = io.CopyN(io.Discard, out, int64(size)+1)
		return err
	}
}

// benchmarkSized reads one file per op, paged in full through read_file
// ("ours", through client/; "base" the same with the build
// REPO_MCP_BENCH_BASE names) or once through git cat-file ("git"). A file
// read in one page is also read through a connection opened with the
// legacy initialize handshake ("ours-legacy": its requests carry no
// 2026-07-28 _meta for go-sdk to decode), and from a server written
// directly on go-sdk that answers with our answer from memory ("engine",
// see engineAnswerEnv): what the protocol engine alone costs as shipped.
func benchmarkSized(b *testing.B, path string) {
	dir := sizedCorpus(b)
	read := func(b *testing.B, c *client.Conn) {
		warmUp(b, c.PID(), c, path)
		measureServer(b, c.PID(), func(int) error {
			n, err := readPages(c, path)
			if err == nil && n < sizedFiles[path]-1<<10 {
				err = fmt.Errorf("read %d bytes of %s", n, path)
			}
			return err
		})
	}
	for _, v := range builds(b) {
		b.Run(v.name, func(b *testing.B) { read(b, startBinary(b, v.bin, dir)) })
	}
	if sizedFiles[path] < 1<<20 {
		b.Run("ours-legacy", func(b *testing.B) {
			read(b, startBinaryWith(b, repoMCP(b), dir, client.Options{Era: client.EraLegacy}))
		})
		b.Run("engine", func(b *testing.B) {
			read(b, startEngine(b, startServer(b, dir), path))
		})
	}
	b.Run("git", func(b *testing.B) {
		read := catFile(b, dir)
		if err := read(path); err != nil {
			b.Fatal(err)
		}
		benchlat.Measure(b, func(int) error { return read(path) })
	})
}

// A server is measured warm: its heap has grown to its working size and
// been collected a few times, as a long-running server's has. A new
// process's first calls cost more (its heap's pages are touched for the
// first time, at 20-50 µs a page on this kind of virtual machine); they
// are the cold start's to measure (BenchmarkColdStart).
//
// How many calls that takes depends on what a call allocates: the heap
// floor (internal/heapfloor) lets the heap grow to 32 MiB before it is
// collected, so a server that allocates 140 KiB a call is warm after some
// 250 calls, and one that allocates 17 KiB only after some 2,000. A fixed
// number of calls measured the second's first touches as its per-call
// cost (1.5 page faults a call, where warm it takes 0.03; each fault
// 20-50 µs). So the
// warm-up goes in rounds of warmUpCalls reads of the file, or warmUpBytes
// of it, whichever comes first (once at least), until a round has the
// server fault at most once in settledCallsPerFault calls (or at most
// settledFaults times: a round of the 10 MB file is 22 calls), or
// maxWarmUpRounds have gone.
const (
	warmUpCalls          = 500
	warmUpBytes          = 20 << 20
	settledCallsPerFault = 50
	settledFaults        = 10
	maxWarmUpRounds      = 20
)

// warmUp reads path through c until the server, process pid, is warm.
func warmUp(b *testing.B, pid int, c *client.Conn, path string) {
	for range maxWarmUpRounds {
		before, ok := minorFaults(pid)
		calls := warmUpRound(b, c, path)
		after, ok2 := minorFaults(pid)
		if !ok || !ok2 || after-before <= max(int64(calls/settledCallsPerFault), settledFaults) {
			return
		}
	}
}

// warmUpRound reads path through c warmUpCalls times, or warmUpBytes of
// it, whichever comes first (once at least), and returns the number of
// read_file calls made.
func warmUpRound(b *testing.B, c *client.Conn, path string) (calls int) {
	pages := sizedFiles[path]>>20 + 1 // readPages reads a page per call
	for reads, n := 0, 0; reads == 0 || reads < warmUpCalls && n < warmUpBytes; reads++ {
		read, err := readPages(c, path)
		if err != nil {
			b.Fatal(err)
		}
		n += read
		calls += pages
	}
	return calls
}

// BenchmarkReadPaged10MB: a 10 MB file read in full, in 1 MiB pages.
func BenchmarkReadPaged10MB(b *testing.B) { benchmarkSized(b, "big.go") }

// BenchmarkRead100KB: a 100 KB file, in one page.
func BenchmarkRead100KB(b *testing.B) { benchmarkSized(b, "mid.go") }

// BenchmarkRead1KB: a 1 KB file, in one page.
func BenchmarkRead1KB(b *testing.B) { benchmarkSized(b, "small.go") }

// BenchmarkReadContended: 1 KB reads by one caller, alone ("alone") or
// while another caller of the same server pages through the 10 MB file
// without pause ("paging"; "base-alone" and "base-paging" with the build
// REPO_MCP_BENCH_BASE names). The p99 ratio shows whether the paging holds
// up the other caller.
func BenchmarkReadContended(b *testing.B) {
	contendedVariants(b, []contention{alone, paging}, readContended)
}

// contention is what the other caller does while the 1 KB reads are
// measured.
type contention int

const (
	alone       contention = iota // nothing
	paging                        // pages the 10 MB file through the same server
	pagingApart                   // pages it through a server process of its own
)

var contentionNames = [...]string{alone: "alone", paging: "paging", pagingApart: "paging-apart"}

// contendedVariants runs read, for each build and each of modes, as the
// sub-benchmarks the contended benchmarks name.
func contendedVariants(b *testing.B, modes []contention, read func(b *testing.B, bin, dir string, mode contention)) {
	dir := sizedCorpus(b)
	for _, v := range builds(b) {
		for _, mode := range modes {
			name := contentionNames[mode]
			if v.name != "ours" {
				name = v.name + "-" + name
			}
			b.Run(name, func(b *testing.B) { read(b, v.bin, dir, mode) })
		}
	}
}

// readContended measures 1 KB reads through bin, with another caller
// paging the 10 MB file meanwhile, on the same stdio stream, when mode is
// paging.
func readContended(b *testing.B, bin, dir string, mode contention) {
	c := startBinary(b, bin, dir)
	measureContended(b, c.PID(), c, c, mode == paging, pageInProcess)
}

// measureContended measures 1 KB reads through reader, on the server
// process pid, warmed through reader and pager, with the pager startPaging
// starts paging the 10 MB file meanwhile when paging is set; reader and
// pager may be one connection.
func measureContended(b *testing.B, pid int, reader, pager *client.Conn, paging bool, startPaging func(*testing.B, *client.Conn) (stop func())) {
	warmUp(b, pid, pager, "big.go")
	warmUp(b, pid, reader, "small.go")
	if paging {
		defer startPaging(b, pager)()
	}
	measureServer(b, pid, func(int) error {
		_, err := readPages(reader, "small.go")
		return err
	})
}

// pageInProcess pages the 10 MB file through pager in this process
// until stop is called.
func pageInProcess(b *testing.B, pager *client.Conn) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			readPages(pager, "big.go")
		}
	})
	time.Sleep(10 * time.Millisecond) // let the pager start
	return func() {
		cancel()
		wg.Wait()
	}
}

// measureServer is benchlat.Measure, and reports the CPU time the server
// process pid spent per op (srv-cpu-µs/op, from /proc, so in ticks
// of 10 ms: time enough ops), the CPU time this process spent (clt-cpu-µs/op:
// the client's side, decoding the answers, with the benchmark's own small
// share), the server's minor page faults per op (srv-faults/op: a warm
// server's are near 0; see warmUp) and its peak resident memory
// (srv-peak-MiB).
// Under load, wall-clock latency moves with the machine's other work and
// CPU time much less.
func measureServer(b *testing.B, pid int, op func(int) error) {
	before, ok := processCPU(pid)
	ownBefore, ownOK := processCPU(os.Getpid())
	faultsBefore, faultsOK := minorFaults(pid)
	benchlat.Measure(b, op)
	if after, ok2 := minorFaults(pid); faultsOK && ok2 {
		b.ReportMetric(float64(after-faultsBefore)/float64(b.N), "srv-faults/op")
	}
	if after, ok2 := processCPU(pid); ok && ok2 {
		b.ReportMetric(float64((after-before).Microseconds())/float64(b.N), "srv-cpu-µs/op")
	}
	if after, ok2 := processCPU(os.Getpid()); ownOK && ok2 {
		b.ReportMetric(float64((after-ownBefore).Microseconds())/float64(b.N), "clt-cpu-µs/op")
	}
	if peak, ok := peakRSS(pid); ok {
		b.ReportMetric(float64(peak)/(1<<20), "srv-peak-MiB")
	}
}

// peakRSS is the peak resident set of process pid (VmHWM in
// /proc/PID/status); false where there is no /proc.
func peakRSS(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// procStat returns the fields of /proc/PID/stat after the command, which
// is in parentheses and may hold spaces; false where there is no /proc.
func procStat(pid int) ([]string, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	return strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:])), true
}

// processCPU is the user and system time process pid has used, from
// /proc/PID/stat; false where there is no /proc.
func processCPU(pid int) (time.Duration, bool) {
	// utime and stime are the 12th and 13th fields after the command.
	fields, ok := procStat(pid)
	if !ok || len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick, true
}
