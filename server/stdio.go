package server

import (
	"context"
	"errors"
	"io"
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
	ctx = withCallIDs(ctx, conn.calls)
	if prepared {
		ctx = withPreparer(ctx, conn)
	}
	err := s.engine().Run(ctx, frameTransport{conn})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
