package main

import (
	"context"
	"flag"
	"io"

	"github.com/repo-mcp/repo-mcp/harness"
	"github.com/repo-mcp/repo-mcp/harness/jsonl"
)

// serveJSONL speaks the line protocol on stdin and stdout until stdin ends,
// then waits for the runs to come to rest.
func serveJSONL(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("jsonl", flag.ContinueOnError)
	var c common
	c.register(fs)
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := c.load()
	if err != nil {
		return err
	}
	w := jsonl.NewWriter(stdout)
	h, err := harness.New(ctx, harness.Options{Config: cfg, Observe: w.Event, Logger: logger(stderr)})
	if err != nil {
		return err
	}
	serveErr := jsonl.Serve(ctx, h, stdin, w)
	closed := make(chan error, 1)
	go func() { closed <- h.Close() }()
	var closeErr error
	select {
	case closeErr = <-closed: // stdin ended: the runs came to rest
	case <-ctx.Done(): // a signal: stop waiting for calls in flight
		closeErr = h.Stop()
	}
	if serveErr == nil {
		serveErr = closeErr
	}
	return serveErr
}
