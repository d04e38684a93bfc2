package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
)

// A harness records every call's outcome before acting on it: a call that was
// sent but not answered is unknown, never failed, and is not replayed.
func Example() {
	ctx := context.Background()
	conn, err := client.Start(ctx, client.Command{
		Path:    "/usr/local/bin/mcp-server-filesystem",
		Args:    []string{"/srv/workspace"},
		Inherit: []string{"HOME"},
	}, client.Options{
		Timeouts: client.Timeouts{Call: 30 * time.Second},
		Limits:   client.Limits{FrameBytes: 4 << 20},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	res, err := conn.Call(ctx, "read_text_file", map[string]string{"path": "/srv/workspace/README.md"})
	var ce *client.CallError
	switch {
	case err == nil && res.IsError:
		fmt.Println("tool failed:", res.Text())
	case err == nil:
		fmt.Printf("%d bytes: %s\n", res.Size(), res.Text())
	case !errors.As(err, &ce):
		log.Fatal(err)
	case ce.Outcome.Unknown():
		fmt.Println("unknown, reconcile before any retry:", ce.Outcome, ce.Head)
	case ce.Outcome == client.NotSent:
		fmt.Println("not sent; safe to retry:", err)
	default:
		fmt.Println("refused:", ce.RPC.Code, ce.RPC.Message)
	}
}

// A server a team runs over Streamable HTTP, with a bearer token: a refused
// token is an error of its own, and everything else is as with Start.
func ExampleDial() {
	ctx := context.Background()
	conn, err := client.Dial(ctx, client.Endpoint{
		URL:    "https://mcp.example.com/mcp",
		Header: http.Header{"Authorization": {"Bearer " + os.Getenv("REPO_MCP_TOKEN")}},
	}, client.Options{Timeouts: client.Timeouts{Call: 30 * time.Second}})
	if errors.Is(err, client.ErrCredentials) {
		log.Fatal("ask for a new token: ", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	res, err := conn.Call(ctx, "read_file", map[string]string{"workspace_id": "repo", "path": "README.md"})
	if err != nil {
		log.Fatal(client.OutcomeOf(err), ": ", err)
	}
	fmt.Println(res.Text())
}
