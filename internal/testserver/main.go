// Command testserver is an MCP server built with the server package for
// tests: it serves the conformance suite's fixture tools (test_simple_text,
// test_error_handling) and tools that misbehave on purpose (print to
// stdout, sleep, return large results). It proves the framework, not the
// product.
//
//	testserver              serve on stdio
//	testserver -http ADDR   serve Streamable HTTP at /mcp
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
)

func main() {
	httpAddr := flag.String("http", "", "serve HTTP on `addr`")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *httpAddr); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, httpAddr string) error {
	var protocol *os.File
	if httpAddr == "" {
		var err error
		if protocol, err = server.TakeStdout(); err != nil {
			return err
		}
	}
	var opts server.Options
	if os.Getenv("TESTSERVER_AUDIT_DISCARD") == "1" {
		opts.Audit = io.Discard
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := server.New(server.Info{Name: "repo-mcp-testserver", Version: "v0.0.0"}, opts)
	if err := register(s); err != nil {
		return err
	}
	if httpAddr == "" {
		return s.Serve(ctx, os.Stdin, protocol)
	}
	ln, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler(server.HTTPOptions{}))
	hs := &http.Server{Handler: mux}
	go func() { <-ctx.Done(); hs.Close() }()
	if err := hs.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

type none struct{}

type textOut struct {
	Text string `json:"text"`
}

type echoIn struct {
	Message string `json:"message" jsonschema_description:"Text to echo."`
}

type sleepIn struct {
	Millis int `json:"millis" jsonschema:"minimum=0,maximum=600000"`
	// ProgressMillis, when positive, is how often to report progress while sleeping.
	ProgressMillis int `json:"progress_ms,omitempty" jsonschema:"minimum=0,maximum=600000"`
}

type bigIn struct {
	Bytes int `json:"bytes" jsonschema:"minimum=0,maximum=100000000"`
}

type bigOut struct {
	Size int `json:"size"`
	text string
}

func (b bigOut) Text() string { return b.text }

func register(s *server.Server) error {
	ro := func(name, desc string) server.Tool {
		return server.Tool{Name: name, Description: desc, Effect: server.ReadOnly}
	}
	return firstErr(
		server.Register(s, ro("test_simple_text", "Returns a simple text response (conformance fixture)."),
			func(context.Context, *server.Request, none) (textOut, error) {
				return textOut{Text: "This is a simple text response for testing."}, nil
			}),
		server.Register(s, ro("test_error_handling", "Always fails (conformance fixture)."),
			func(context.Context, *server.Request, none) (none, error) {
				return none{}, server.Errorf(server.PreconditionFailed, "This tool intentionally returns an error for testing")
			}),
		server.Register(s, ro("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 (conformance fixture)."),
			func(ctx context.Context, req *server.Request, _ none) (textOut, error) {
				// The suite asks for pauses of about 50 ms; the framework
				// lets out one notification per 250 ms (the newest), so
				// the pauses are longer for all three to travel.
				for i, p := range []float64{0, 50, 100} {
					if i > 0 {
						select {
						case <-time.After(300 * time.Millisecond):
						case <-ctx.Done():
							return textOut{}, ctx.Err()
						}
					}
					req.Progress(p, 100, fmt.Sprintf("%g of 100", p))
				}
				return textOut{Text: "progress reported"}, nil
			}),
		server.Register(s, ro("echo", "Echoes the message."),
			func(_ context.Context, _ *server.Request, in echoIn) (textOut, error) {
				return textOut{Text: in.Message}, nil
			}),
		server.Register(s, ro("print_stdout", "Prints to stdout, directly and from a child process, then answers."),
			func(ctx context.Context, _ *server.Request, _ none) (textOut, error) {
				fmt.Println("stray print from the tool")
				os.Stdout.WriteString("stray write to os.Stdout\n")
				syscall.Write(1, []byte("stray write to file descriptor 1\n"))
				// A child given the process's stdout, as a careless
				// library's subprocess would be.
				child := exec.CommandContext(ctx, "sh", "-c", "echo stray print from a child")
				child.Stdout = os.Stdout
				if err := child.Run(); err != nil {
					return textOut{}, err
				}
				return textOut{Text: "printed"}, nil
			}),
		server.Register(s, ro("sleep", "Sleeps for the given time, or until cancelled, reporting progress every progress_ms if asked."),
			sleep),
		server.Register(s, server.Tool{Name: "big", Description: "Returns a text result of the given size.", Effect: server.ReadOnly, MaxResultBytes: 100 << 20},
			func(_ context.Context, _ *server.Request, in bigIn) (bigOut, error) {
				return bigOut{Size: in.Bytes, text: strings.Repeat("x", in.Bytes)}, nil
			}),
	)
}

// sleep sleeps, and reports the milliseconds slept so far as progress
// every in.ProgressMillis.
func sleep(ctx context.Context, req *server.Request, in sleepIn) (textOut, error) {
	start := time.Now()
	end := time.After(time.Duration(in.Millis) * time.Millisecond)
	var beat <-chan time.Time
	if in.ProgressMillis > 0 {
		t := time.NewTicker(time.Duration(in.ProgressMillis) * time.Millisecond)
		defer t.Stop()
		beat = t.C
	}
	for {
		select {
		case <-end:
			return textOut{Text: "slept"}, nil
		case <-beat:
			slept := time.Since(start).Milliseconds()
			req.Progress(float64(slept), float64(in.Millis), fmt.Sprintf("slept %d of %d ms", slept, in.Millis))
		case <-ctx.Done():
			return textOut{}, ctx.Err()
		}
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
