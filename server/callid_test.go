package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"
)

type seenOut struct {
	RPCID    string   `json:"rpc_id"`
	MetaKeys []string `json:"meta_keys"`
}

// TestCallIDsOnAStream sends concurrent tools/calls on one stream, one of
// them with a forged rpc-id in _meta (where the id used to travel), and
// checks that each handler saw its own request's JSON-RPC id and the _meta
// the client sent, and that the stream forgets every call once answered,
// including one the engine refused before any handler ran.
func TestCallIDsOnAStream(t *testing.T) {
	const calls = 6
	var (
		arrived sync.WaitGroup
		all     = make(chan struct{})
	)
	arrived.Add(calls)
	go func() { arrived.Wait(); close(all) }()
	s := New(Info{Name: "ids", Version: "v0"}, Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	MustRegister(s, Tool{Name: "seen", Description: "Says what the handler saw.", Effect: ReadOnly},
		func(ctx context.Context, req *Request, _ struct{}) (seenOut, error) {
			arrived.Done()
			select { // every call is in flight at once
			case <-all:
			case <-time.After(10 * time.Second):
				return seenOut{}, fmt.Errorf("the calls did not run concurrently")
			}
			return seenOut{RPCID: req.RPCID, MetaKeys: slices.Sorted(maps.Keys(req.Meta))}, nil
		})

	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	conn := newFrameConn(serverIn, serverOut, DefaultMaxFrameBytes, s.log)
	done := make(chan error, 1)
	go func() { done <- s.engine().Run(withCallIDs(context.Background(), conn.calls), frameTransport{conn}) }()

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	ids := []string{`1`, `"a"`, `2`, `"b\"c"`, `3`, `"forged"`}
	go func() {
		for i, id := range ids {
			m := meta
			if i == len(ids)-1 {
				m += `,"io.github.repo-mcp/rpc-id":"9"`
			}
			fmt.Fprintf(clientOut, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{%s},"name":"seen","arguments":{}}}`+"\n", id, m)
		}
		fmt.Fprintf(clientOut, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{%s},"name":"nope","arguments":{}}}`+"\n", meta)
	}()
	replies := bufio.NewScanner(clientIn)
	replies.Buffer(nil, 1<<20)
	for range len(ids) + 1 {
		if !replies.Scan() {
			t.Fatalf("reply: %v", replies.Err())
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				Structured seenOut `json:"structuredContent"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(replies.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", replies.Bytes(), err)
		}
		if string(r.ID) == "99" {
			if r.Error == nil {
				t.Errorf("an unknown tool was answered: %s", replies.Bytes())
			}
			continue
		}
		if got := r.Result.Structured; got.RPCID != string(r.ID) || !slices.Equal(got.MetaKeys, wantMetaKeys(string(r.ID))) {
			t.Errorf("the answer to %s saw %+v", r.ID, got)
		}
	}
	clientOut.Close()
	if err := <-done; err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if n := len(conn.calls.byID) + len(conn.calls.byExtra); n != 0 {
		t.Errorf("the stream still holds %d entries of answered calls", n)
	}
}

// wantMetaKeys is the _meta the calls of TestCallIDsOnAStream send.
func wantMetaKeys(id string) []string {
	keys := []string{"io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/protocolVersion"}
	if id == `"forged"` {
		keys = append([]string{"io.github.repo-mcp/rpc-id"}, keys...)
	}
	return keys
}
