package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Serve speaks MCP on one stream pair (newline-delimited JSON-RPC) until
// in ends or ctx is cancelled. When in ends, calls in flight are given a
// short grace period to answer. Serve returns nil on a clean end of input.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.serve(ctx, in, out, true)
}

// serve is Serve, with the choice of writing large results prepared (see
// prepared.go) or as the engine encodes them.
func (s *Server) serve(ctx context.Context, in io.Reader, out io.Writer, prepared bool) error {
	conn := newFrameConn(in, out, s.opts.MaxFrameBytes, s.log)
	defer conn.Close()
	if prepared {
		ctx = withPreparer(ctx, conn)
	}
	err := s.engine().Run(ctx, frameTransport{conn})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// TakeStdout protects the protocol stream of a stdio server. It returns a
// duplicate of the process's standard output for the protocol alone, then
// points file descriptor 1 (and so os.Stdout) at standard error, so that a
// stray print, in this process or a child it starts, lands in the log
// instead of corrupting the stream. Call it first thing in main, before
// anything could write to stdout.
func TakeStdout() (*os.File, error) {
	fd, err := syscall.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("duplicate stdout: %w", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Dup2(2, 1); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	// os.Stdout still wraps descriptor 1, which now leads to stderr. It is
	// not replaced: dropping the last reference to its *os.File would let
	// the collector close descriptor 1.
	return os.NewFile(uintptr(fd), "protocol-stdout"), nil
}
