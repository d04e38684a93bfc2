// Command conformanceclient is the client under test in the MCP conformance
// suite's client mode: the suite runs it with the URL of a mock server as
// its last argument and the scenario in MCP_CONFORMANCE_SCENARIO, and it
// speaks to that server through client.Dial.
//
// Scenarios: initialize (the handshake, then Close) and tools_call (lists
// the tools and calls add_numbers); any other scenario gets the handshake
// and a tools/list.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceclient URL")
		os.Exit(2)
	}
	if err := run(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceclient:", err)
		os.Exit(1)
	}
}

func run(url, scenario string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := client.Options{ClientInfo: client.Implementation{Name: "repo-mcp-conformance-client", Version: "0.1.0"}}
	c, err := client.Dial(ctx, client.Endpoint{URL: url}, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Printf("connected: %+v\n", c.Server())
	if scenario == "initialize" {
		return nil
	}
	tools, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%d tools\n", len(tools))
	if scenario != "tools_call" {
		return nil
	}
	res, err := c.Call(ctx, "add_numbers", map[string]int{"a": 5, "b": 3})
	if err != nil {
		return err
	}
	fmt.Println(res.Text())
	return nil
}
