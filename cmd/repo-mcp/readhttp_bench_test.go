package main

import (
	"bufio"
	"context"
	"fmt"
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
// other's answers are on connections of their own, and in processes of
// their own: the pager runs in a child process (TestPagerProcess). In this
// one, its pages' garbage (a new 1 MiB text a page) made the reader's
// process collect every 60 ms or so, and those collections' pauses, which
// no separate caller pays, were a large part of the reader's p99.
//
// "paging-apart" pages through a second server process of its own: the
// reads then share only the machine with the paging, its two processes'
// CPU on these cores. Its p99 is what the paging costs the reader with no
// server in common, so paging's p99 beside it is what sharing the server
// adds.
func BenchmarkReadContendedHTTP(b *testing.B) {
	contendedVariants(b, []contention{alone, paging, pagingApart}, func(b *testing.B, bin, dir string, mode contention) {
		url, pid := startHTTPBinary(b, bin, dir)
		reader, pager := dialBench(b, url), dialBench(b, url)
		pagerURL := url
		if mode == pagingApart {
			var pagerPID int
			pagerURL, pagerPID = startHTTPBinary(b, bin, dir)
			pager = dialBench(b, pagerURL)
			warmUp(b, pagerPID, pager, "big.go")
		}
		measureContended(b, pid, reader, pager, mode != alone, func(b *testing.B, _ *client.Conn) func() {
			return pageInChild(b, pagerURL)
		})
	})
}

// pagerURLEnv names the server TestPagerProcess pages through.
const pagerURLEnv = "REPO_MCP_BENCH_PAGER_URL"

// pageInChild starts this test binary again as a pager of the server at
// url (TestPagerProcess), waits until it has read a page, and returns
// what stops it.
func pageInChild(b *testing.B, url string) (stop func()) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestPagerProcess$")
	cmd.Env = append(os.Environ(), pagerURLEnv+"="+url)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop = func() {
		stdin.Close()
		cmd.Wait()
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if sc.Text() == pagerStarted {
			go io.Copy(io.Discard, stdout)
			return stop
		}
	}
	stop()
	b.Fatal("the pager process exited before it read a page")
	return nil
}

// pagerStarted is the line TestPagerProcess prints once it has read a page.
const pagerStarted = "pager: paging"

// TestPagerProcess is BenchmarkReadContendedHTTP's pager when this binary
// is started by pageInChild: it pages the 10 MB file through the server
// pagerURLEnv names, without pause, until its standard input closes.
// Otherwise it is skipped.
func TestPagerProcess(t *testing.T) {
	url := os.Getenv(pagerURLEnv)
	if url == "" {
		t.Skip("only as BenchmarkReadContendedHTTP's pager")
	}
	c, err := client.Dial(context.Background(), client.Endpoint{URL: url}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	for i := 0; ctx.Err() == nil; i++ {
		if _, err := readPages(c, "big.go"); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			fmt.Println(pagerStarted)
		}
	}
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
