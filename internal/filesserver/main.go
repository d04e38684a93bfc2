// Command filesserver is an MCP server built with the server package for the
// harness's tests: it serves a directory with list_files, read_file and
// write_note (the tools repo-mcp's own will replace), plus tools that let a
// test misbehave on purpose: write_file (a write tool the harness does not
// allowlist), slow_write (sleeps, then writes: a side effect a test can
// interrupt), and big (a result larger than the harness gives a model) and sleep (a slow
// read-only call).
//
//	filesserver -root DIR [-started FILE]
//
// It checks nothing beyond os.Root: keeping paths inside the workspace,
// away from hidden files, is the harness's job, and the tests prove it does.
// FILESSERVER_DESCRIPTION, when set, replaces read_file's description, so a
// test can change a tool's definition between two starts.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
)

func main() {
	root := flag.String("root", ".", "serve the directory `dir`")
	started := flag.String("started", "", "append \"PID TOOL\" to `file` when a slow call starts")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *root, *started); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, root, started string) error {
	protocol, err := server.TakeStdout()
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	s := server.New(server.Info{Name: "repo-mcp-filesserver", Version: "v0.0.0"}, server.Options{
		Audit:  io.Discard,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err := register(s, r, startedFunc(started)); err != nil {
		return err
	}
	return s.Serve(ctx, os.Stdin, protocol)
}

type text struct {
	Bytes int `json:"bytes"`
	text  string
}

func (t text) Text() string { return t.text }

func out(s string) text { return text{Bytes: len(s), text: s} }

type listIn struct {
	Path string `json:"path,omitempty" jsonschema:"description=Directory relative to the root; default the root."`
}

type pathIn struct {
	Path string `json:"path" jsonschema:"description=File path relative to the root.,minLength=1"`
}

type writeIn struct {
	Path string `json:"path" jsonschema:"description=File path relative to the root.,minLength=1"`
	Text string `json:"text" jsonschema:"description=The text to write."`
}

type slowIn struct {
	Path   string `json:"path" jsonschema:"minLength=1"`
	Text   string `json:"text"`
	Millis int    `json:"millis" jsonschema:"minimum=0,maximum=600000"`
}

type sleepIn struct {
	Millis int `json:"millis" jsonschema:"minimum=0,maximum=600000"`
}

type bigIn struct {
	Bytes int `json:"bytes" jsonschema:"minimum=0,maximum=100000000"`
}

// startedFunc returns what a slow tool calls when it starts (and sleep when
// it is cancelled): it tells a test that the call, or its cancellation,
// reached the server.
func startedFunc(file string) func(tool string) {
	return func(tool string) {
		if file == "" {
			return
		}
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		fmt.Fprintf(f, "%d %s\n", os.Getpid(), tool)
		f.Close()
	}
}

func register(s *server.Server, r *os.Root, started func(tool string)) error {
	readDesc := "Reads a text file."
	if d := os.Getenv("FILESSERVER_DESCRIPTION"); d != "" {
		readDesc = d
	}
	write := func(p, t string) (text, error) {
		if dir := path.Dir(p); dir != "." {
			if err := r.MkdirAll(dir, 0o755); err != nil {
				return text{}, err
			}
		}
		if err := r.WriteFile(p, []byte(t), 0o644); err != nil {
			return text{}, err
		}
		return out(fmt.Sprintf("wrote %d bytes to %s", len(t), p)), nil
	}
	for _, err := range []error{
		server.Register(s, server.Tool{Name: "list_files", Description: "Lists the files under a directory, recursively.", Effect: server.ReadOnly},
			func(_ context.Context, _ *server.Request, in listIn) (text, error) {
				dir := in.Path
				if dir == "" {
					dir = "."
				}
				var b strings.Builder
				err := fs.WalkDir(r.FS(), dir, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						return err
					}
					if d.IsDir() && d.Name() == ".git" {
						return fs.SkipDir
					}
					if d.Type().IsRegular() {
						b.WriteString(p + "\n")
					}
					return nil
				})
				return out(b.String()), err
			}),
		server.Register(s, server.Tool{Name: "read_file", Description: readDesc, Effect: server.ReadOnly},
			func(_ context.Context, _ *server.Request, in pathIn) (text, error) {
				data, err := r.ReadFile(in.Path)
				if err != nil {
					return text{}, server.Errorf(server.NotFound, "%v", err)
				}
				return out(string(data)), nil
			}),
		server.Register(s, server.Tool{Name: "write_note", Description: "Writes a note.", Effect: server.Write},
			func(_ context.Context, _ *server.Request, in writeIn) (text, error) { return write(in.Path, in.Text) }),
		server.Register(s, server.Tool{Name: "write_file", Description: "Writes any file.", Effect: server.Destructive},
			func(_ context.Context, _ *server.Request, in writeIn) (text, error) { return write(in.Path, in.Text) }),
		server.Register(s, server.Tool{Name: "slow_write", Description: "Waits, then writes a file.", Effect: server.Write, Timeout: 10 * time.Minute},
			func(ctx context.Context, _ *server.Request, in slowIn) (text, error) {
				started("slow_write")
				select {
				case <-time.After(time.Duration(in.Millis) * time.Millisecond):
					return write(in.Path, in.Text)
				case <-ctx.Done():
					return text{}, ctx.Err()
				}
			}),
		server.Register(s, server.Tool{Name: "sleep", Description: "Sleeps, then answers.", Effect: server.ReadOnly, Timeout: 10 * time.Minute},
			func(ctx context.Context, _ *server.Request, in sleepIn) (text, error) {
				started("sleep")
				select {
				case <-time.After(time.Duration(in.Millis) * time.Millisecond):
					return out("slept"), nil
				case <-ctx.Done():
					started("sleep cancelled")
					return text{}, ctx.Err()
				}
			}),
		server.Register(s, server.Tool{Name: "big", Description: "Returns a text result of the given size.", Effect: server.ReadOnly, MaxResultBytes: 100 << 20},
			func(_ context.Context, _ *server.Request, in bigIn) (text, error) {
				return out(strings.Repeat("0123456789abcdef\n", in.Bytes/17+1)[:in.Bytes]), nil
			}),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}
