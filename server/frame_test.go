package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestLargeAnswerHoldsUpNothingElse: while a large answer waits for the
// client to read it, the stream still reads requests and runs their
// calls; only the writing of their answers waits for that frame.
func TestLargeAnswerHoldsUpNothingElse(t *testing.T) {
	ran := make(chan struct{})
	s := New(Info{Name: "hol", Version: "v0"}, Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	MustRegister(s, Tool{Name: "big", Description: "A large answer.", Effect: ReadOnly, MaxResultBytes: 8 << 20},
		func(context.Context, *Request, struct{}) (blobText, error) {
			return blobText{blobOut{Text: strings.Repeat("x", 2<<20)}}, nil
		})
	MustRegister(s, Tool{Name: "small", Description: "A small answer.", Effect: ReadOnly},
		func(context.Context, *Request, struct{}) (seenOut, error) {
			close(ran)
			return seenOut{}, nil
		})
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe() // unbuffered: a write waits for the reader
	done := make(chan error, 1)
	go func() { done <- s.serve(context.Background(), serverIn, serverOut, true) }()
	call := func(id int, name string) {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		fmt.Fprintf(clientOut, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"name":%q,"arguments":{}}}`+"\n", id, meta, name)
	}
	call(1, "big")
	replies := bufio.NewReaderSize(clientIn, 64<<10)
	if head, err := replies.Peek(len(`{"jsonrpc":"2.0","id":1,`)); err != nil || string(head) != `{"jsonrpc":"2.0","id":1,` {
		t.Fatalf("the large answer begins %q, %v", head, err)
	}
	// The large answer is being written, and the client reads no more of it.
	call(2, "small")
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("a call was not run while the answer before it waited for the client")
	}
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,`, `{"jsonrpc":"2.0","id":2,`} {
		line, err := replies.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, want) {
			t.Fatalf("reply %.60q, %v; want one starting %s", line, err, want)
		}
	}
	clientOut.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
