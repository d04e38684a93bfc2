package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
)

// BenchmarkReadContendedHTTP is BenchmarkReadContended with the two callers
// on two connections to one server over Streamable HTTP: 1 KB reads alone
// ("alone") or while the other connection pages through the 10 MB file
// ("paging"; "base-alone" and "base-paging" with the build
// REPO_MCP_BENCH_BASE names). On one stdio stream answers are frames in one
// order, so a small answer written after a 1 MiB page waits for the client
// to read that page; callers who share a server without waiting on each
// other's answers are on connections of their own.
func BenchmarkReadContendedHTTP(b *testing.B) {
	contendedVariants(b, func(b *testing.B, bin, dir string, paging bool) {
		url, pid := startHTTPBinary(b, bin, dir)
		reader, pager := dialBench(b, url), dialBench(b, url)
		measureContended(b, pid, reader, pager, paging)
	})
}

// serverURL finds the URL the server prints on stderr once it listens.
var serverURL = regexp.MustCompile(`http://[0-9.:\[\]a-z]+/mcp`)

// startHTTPBinary starts bin serving dir over Streamable HTTP on a
// loopback port, and returns its URL and process id.
func startHTTPBinary(b *testing.B, bin, dir string) (string, int) {
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--workspace", "go="+dir, "--audit-log", os.DevNull)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u := serverURL.FindString(sc.Text()); u != "" {
			go io.Copy(io.Discard, stderr)
			return u, cmd.Process.Pid
		}
	}
	b.Fatalf("%s exited without printing its URL", bin)
	return "", 0
}

// dialBench connects a client to url, closed when the benchmark ends.
func dialBench(b *testing.B, url string) *client.Conn {
	c, err := client.Dial(context.Background(), client.Endpoint{URL: url}, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}
