package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// The start-up benchmarks time whole processes, so a build of another
// revision can run beside this one in the same rounds: set
// REPO_MCP_BENCH_BASE to its binary and each benchmark gains a "base"
// variant. bench/startup.sh builds one and prints the ratios.

// builds are the repo-mcp binaries to compare: this tree's, and the one
// REPO_MCP_BENCH_BASE names.
func builds(b *testing.B) []struct{ name, bin string } {
	out := []struct{ name, bin string }{{"ours", repoMCP(b)}}
	if base := os.Getenv("REPO_MCP_BENCH_BASE"); base != "" {
		out = append(out, struct{ name, bin string }{"base", base})
	}
	return out
}

// BenchmarkVersion: one op runs repo-mcp version, which initializes every
// package of the binary and touches nothing else; the baseline runs git
// --version.
func BenchmarkVersion(b *testing.B) {
	for _, v := range builds(b) {
		b.Run(v.name, func(b *testing.B) {
			benchlat.Measure(b, func(int) error { return runQuiet(v.bin, "", "version") })
		})
	}
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error { return runQuiet("git", "", "--version") })
	})
}

// BenchmarkColdStart: one op starts repo-mcp, completes the handshake and
// gets the first read_file answered; the baseline starts one git process
// that prints the same blob.
func BenchmarkColdStart(b *testing.B) {
	dir, paths := corpus(b)
	for _, v := range builds(b) {
		b.Run(v.name, func(b *testing.B) {
			benchlat.Measure(b, func(int) error { return coldRead(v.bin, dir, paths[0]) })
		})
	}
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error { return runQuiet("git", dir, "cat-file", "blob", "HEAD:"+paths[0]) })
	})
}

// BenchmarkColdStartFixture is BenchmarkColdStart on the tests' small
// fixture repository (loose objects, a handful of files), where the cold
// start is the server's own start and not the repository's size: the
// target of 50 ms is for this one.
func BenchmarkColdStartFixture(b *testing.B) {
	dir, _ := fixtureRepo(b)
	for _, v := range builds(b) {
		b.Run(v.name, func(b *testing.B) {
			benchlat.Measure(b, func(int) error { return coldRead(v.bin, dir, "README.md") })
		})
	}
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error { return runQuiet("git", dir, "cat-file", "blob", "HEAD:README.md") })
	})
}

// coldRead starts bin serving dir and reads path through it.
func coldRead(bin, dir, path string) error {
	c, err := client.Start(context.Background(), client.Command{
		Path: bin, Args: []string{"serve", "--workspace", "go=" + dir, "--audit-log", os.DevNull},
	}, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := readFile(c, path)
	if err == nil && res.IsError {
		err = fmt.Errorf("read_file %s: error result", path)
	}
	return err
}

// runQuiet runs a command in dir, its output discarded.
func runQuiet(name, dir string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %w", name, args, err)
	}
	return nil
}
