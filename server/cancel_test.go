package server_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
)

type stoppedOut struct {
	Report string `json:"report"`
}

// TestCancelledCallNotAnswered checks, in both eras on stdio, that a call
// the client cancels with notifications/cancelled gets no answer even when
// its tool returns a result once stopped (as verify_patch returns a
// report), that the stream goes on serving, and that the audit line says
// the call was cancelled rather than ok.
func TestCancelledCallNotAnswered(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tt := range []struct{ era, open, call, ping string }{
		{"legacy",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stoppable","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`},
		{"modern",
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stoppable","arguments":{},` + meta + `}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`},
	} {
		t.Run(tt.era, func(t *testing.T) {
			audit := &syncBuffer{} // calls_test.go
			s := server.New(server.Info{Name: "t", Version: "v0"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: audit})
			started := make(chan struct{})
			server.MustRegister(s, server.Tool{Name: "stoppable", Description: "Reports once stopped.", Effect: server.ReadOnly},
				func(ctx context.Context, _ *server.Request, _ struct{}) (stoppedOut, error) {
					close(started)
					<-ctx.Done()
					return stoppedOut{"FAILED: stopped"}, nil
				})
			serverIn, clientOut := io.Pipe()
			clientIn, serverOut := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := s.Serve(context.Background(), serverIn, serverOut)
				serverOut.Close() // the test reads to the end of the output
				done <- err
			}()
			replies := bufio.NewReader(clientIn)
			send := func(line string) {
				if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			send(tt.open)
			if reply, err := replies.ReadString('\n'); err != nil || !strings.Contains(reply, `"id":1,"result"`) {
				t.Fatalf("opening reply = %s, %v", reply, err)
			}
			send(tt.call)
			<-started
			send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}`)
			send(tt.ping)
			reply, err := replies.ReadString('\n')
			if err != nil || !strings.Contains(reply, `"id":3,`) {
				t.Errorf("reply after the cancellation = %s, %v; want the answer to id 3 (none for the cancelled id 2)", reply, err)
			}
			clientOut.Close()
			if rest, _ := io.ReadAll(replies); len(rest) > 0 {
				t.Errorf("more replies after the input ended: %s", rest)
			}
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			if log := audit.String(); !strings.Contains(log, `"tool":"stoppable"`) || !strings.Contains(log, `"outcome":"cancelled"`) {
				t.Errorf("audit = %s; want the call recorded as cancelled", log)
			}
		})
	}
}
