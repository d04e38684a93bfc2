package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/repo-mcp/repo-mcp/server"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"description=Who to greet.,maxLength=40"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

// A tool is registered from a typed function; a client calls it over a
// stream pair (here, in-memory lines instead of stdin and stdout).
func Example() {
	s := server.New(server.Info{Name: "greeter", Version: "v1"}, server.Options{
		Logger: slog.New(slog.DiscardHandler),
		Audit:  io.Discard,
	})
	err := server.Register(s, server.Tool{Name: "greet", Description: "Greets someone.", Effect: server.ReadOnly},
		func(_ context.Context, _ *server.Request, in greetIn) (greetOut, error) {
			return greetOut{Greeting: "Hello, " + in.Name + "!"}, nil
		})
	if err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"greet","arguments":{"name":"Ada","request_id":"ex-1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"greet","arguments":{"Name":"Ada","request_id":"ex-2"}}}` + "\n")
	var out strings.Builder
	if err := s.Serve(context.Background(), in, &out); err != nil {
		panic(err)
	}
	// Calls run concurrently: replies come in any order, matched by id.
	texts := make(map[int]string)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var reply struct {
			ID     int
			Result struct {
				Content []struct{ Text string }
			}
		}
		if err := json.Unmarshal([]byte(line), &reply); err != nil {
			panic(err)
		}
		texts[reply.ID] = reply.Result.Content[0].Text
	}
	fmt.Println(texts[1])
	fmt.Println(texts[2])
	// Output:
	// {"request_id":"ex-1","greeting":"Hello, Ada!"}
	// invalid_input: 3 problems with the arguments:
	// - (root): missing property 'name'
	// - (root): additional properties 'Name' not allowed
	// - /Name: unknown key "Name": keys are case-sensitive; did you mean "name"?
	// hint: fix every problem listed, then call again
}

// The main function of a stdio server: what a host launches. TakeStdout
// comes first, so that nothing but the protocol reaches stdout; Serve
// returns when the host closes stdin. (This example is compiled, not run:
// it would take the test's own stdout.)
func Example_stdio() {
	protocol, err := server.TakeStdout()
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := server.New(server.Info{Name: "greeter", Version: "v1"}, server.Options{}) // logs and audit: stderr
	server.MustRegister(s, server.Tool{Name: "greet", Description: "Greets someone.", Effect: server.ReadOnly},
		func(_ context.Context, req *server.Request, in greetIn) (greetOut, error) {
			req.Progress(1, 1, "greeting") // a notification only when the client asked for progress
			return greetOut{Greeting: "Hello, " + in.Name + "!"}, nil
		})
	if err := s.Serve(ctx, os.Stdin, protocol); err != nil {
		log.Fatal(err)
	}
}
