package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// The benchmarks run the repo-mcp binary over stdio on the Go standard
// library's source committed into a repository (gitfixture.GoSource; set
// REPO_MCP_BENCH_REPO to reuse one), side by side with git on the same
// repository. bench/readtools.sh prints the ratios.

var benchRepo struct {
	once  sync.Once
	temp  string // removed by TestMain
	dir   string
	paths []string
}

func corpus(b *testing.B) (string, []string) {
	benchRepo.once.Do(func() {
		dir := os.Getenv("REPO_MCP_BENCH_REPO")
		if dir == "" {
			temp, err := os.MkdirTemp("", "repo-mcp-bench-")
			if err != nil {
				b.Fatal(err)
			}
			benchRepo.temp = temp
			dir = filepath.Join(temp, "src")
			gitfixture.GoSource(b, dir)
		}
		benchRepo.dir = dir
		benchRepo.paths = spread(gitfixture.Git(b, dir, "ls-tree", "-r", "--name-only", "HEAD"), 1000)
	})
	return benchRepo.dir, benchRepo.paths
}

// spread picks n of the listed paths, evenly over the tree.
func spread(listing string, n int) []string {
	all := strings.Fields(listing)
	step := max(len(all)/n, 1)
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += step {
		out = append(out, all[i])
	}
	return out
}

func startServer(b *testing.B, dir string) *client.Conn {
	return startBinary(b, repoMCP(b), dir)
}

// startBinary is startServer with another build of repo-mcp.
func startBinary(b *testing.B, bin, dir string) *client.Conn {
	return startBinaryWith(b, bin, dir, client.Options{})
}

// startBinaryWith is startBinary with a client of the given options.
func startBinaryWith(b *testing.B, bin, dir string, opts client.Options) *client.Conn {
	args := []string{"serve", "--workspace", "go=" + dir, "--audit-log", os.DevNull}
	if prof := os.Getenv("REPO_MCP_BENCH_CPUPROFILE"); prof != "" {
		args = append(args, "--cpuprofile", prof) // the server's profile, for diagnosis
	}
	c, err := client.Start(context.Background(), client.Command{Path: bin, Args: args}, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func readFile(c *client.Conn, path string) (*client.Result, error) {
	return c.Call(context.Background(), "read_file", map[string]any{"workspace_id": "go", "path": path, "max_bytes": 1 << 20})
}

// BenchmarkReadFile: one op reads one file (cycling through 1000 files,
// after a warm-up pass), through read_file over stdio, or through one
// long-running git cat-file --batch. "ours" calls through client/, which
// decodes each answer into a typed result; "wire" sends the same calls and
// reads each answer frame without decoding it, as the git variant reads
// cat-file's output, so it measures the server alone.
func BenchmarkReadFile(b *testing.B) {
	dir, paths := corpus(b)
	b.Run("ours", func(b *testing.B) {
		c := startServer(b, dir)
		var readable []string
		for _, p := range paths { // warm-up; the deny list hides a few (keys, certificates)
			if res, err := readFile(c, p); err == nil && !res.IsError {
				readable = append(readable, p)
			}
		}
		benchlat.Measure(b, func(i int) error {
			res, err := readFile(c, readable[i%len(readable)])
			if err == nil && res.IsError {
				err = fmt.Errorf("%s", res.Text())
			}
			return err
		})
	})
	b.Run("wire", func(b *testing.B) {
		call := wireClient(b, dir)
		read := func(path string) error {
			return call("read_file", fmt.Sprintf(`{"workspace_id":"go","path":%q,"max_bytes":1048576}`, path))
		}
		var readable []string
		for _, p := range paths { // warm-up, as above
			if read(p) == nil {
				readable = append(readable, p)
			}
		}
		benchlat.Measure(b, func(i int) error { return read(readable[i%len(readable)]) })
	})
	b.Run("git", func(b *testing.B) {
		read := catFile(b, dir)
		for _, p := range paths {
			if err := read(p); err != nil {
				b.Fatal(err)
			}
		}
		benchlat.Measure(b, func(i int) error { return read(paths[i%len(paths)]) })
	})
}

// BenchmarkListFiles: one op lists the whole tree: list_files recursive,
// paged by 10 000, without sizes (the default), or one git ls-tree -r
// process, which prints none either.
func BenchmarkListFiles(b *testing.B) {
	dir, _ := corpus(b)
	b.Run("ours", func(b *testing.B) {
		c := startServer(b, dir)
		list := func(int) error {
			args := map[string]any{"workspace_id": "go", "recursive": true, "limit": 10000}
			for {
				res, err := c.Call(context.Background(), "list_files", args)
				if err != nil || res.IsError {
					return fmt.Errorf("list_files: %v %v", err, res)
				}
				// Like git ls-tree's output, the listing is not parsed:
				// only the cursor is taken from it.
				next := nextCursor(res.StructuredContent)
				if next == "" {
					return nil
				}
				args["cursor"] = next
			}
		}
		list(0) // warm-up
		benchlat.Measure(b, list)
	})
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error {
			cmd := exec.Command("git", "ls-tree", "-r", "HEAD")
			cmd.Dir = dir
			cmd.Stdout = io.Discard
			return cmd.Run()
		})
	})
}

// wireClient starts repo-mcp and returns a function that makes one
// tools/call in the 2026-07-28 era, as client/ does, and reads the answer
// frame without decoding it. A result with isError is an error.
func wireClient(b *testing.B, dir string) func(tool, args string) error {
	cmd := exec.Command(repoMCP(b), "serve", "--workspace", "go="+dir, "--audit-log", os.DevNull)
	in, err := cmd.StdinPipe()
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
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	out := bufio.NewReaderSize(stdout, 1<<20)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
	id := 0
	return func(tool, args string) error {
		id++
		if _, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"name":%q,"arguments":%s}}`+"\n", id, meta, tool, args); err != nil {
			return err
		}
		var isError bool
		for {
			chunk, err := out.ReadSlice('\n')
			isError = isError || bytes.Contains(chunk, []byte(`"isError":true`))
			switch {
			case err == bufio.ErrBufferFull:
				continue
			case err != nil:
				return err
			case isError:
				return fmt.Errorf("%s: error result", tool)
			}
			return nil
		}
	}
}

// nextCursor finds next_cursor in a list_files result without decoding
// the entries.
func nextCursor(structured []byte) string {
	const key = `"next_cursor":"`
	i := bytes.LastIndex(structured, []byte(key))
	if i < 0 {
		return ""
	}
	rest := structured[i+len(key):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}
