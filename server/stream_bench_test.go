package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
)

// BenchmarkStreamCall measures one tools/call of a trivial tool through a
// stdio stream, one call at a time as a client waiting for each answer
// sends them: the frame guard, the engine and the framework, with the
// _meta a 2026-07-28 client sends on every call.
func BenchmarkStreamCall(b *testing.B) {
	s := New(Info{Name: "bench"}, Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	MustRegister(s, Tool{Name: "echo", Description: "d", Effect: ReadOnly},
		func(_ context.Context, _ *Request, in benchIn) (benchOut, error) {
			return benchOut{Text: in.Message}, nil
		})
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	conn := newFrameConn(serverIn, serverOut, DefaultMaxFrameBytes, s.log)
	done := make(chan error, 1)
	go func() { done <- s.engine().Run(withCallIDs(context.Background(), conn.calls), frameTransport{conn}) }()
	replies := bufio.NewReader(clientIn)
	const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"repo-harness","version":"v0.1.0"}}`
	id := 0
	call := func() {
		id++
		fmt.Fprintf(clientOut, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"},"_meta":%s}}`+"\n", id, meta)
		if _, err := replies.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	call() // the engine accepts the stream's _meta
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
	clientOut.Close()
	if err := <-done; err != nil && err != io.EOF {
		b.Fatal(err)
	}
}
