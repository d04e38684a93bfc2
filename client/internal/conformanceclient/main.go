// Command conformanceclient is the client under test in the MCP conformance
// suite's client mode: the suite runs it with the URL of a mock server as
// its last argument, the scenario in MCP_CONFORMANCE_SCENARIO and, for
// some scenarios, a JSON context in MCP_CONFORMANCE_CONTEXT; it speaks to
// that server through client.Dial, as repo-harness does.
//
// Each scenario the client can meet has a driver below that does what the
// scenario observes (list tools, call the tool it names). The scenarios it
// cannot meet, and why, are listed in baseline.yml, which the suite reads
// as its expected failures; for them, and for any scenario this command
// does not know, it connects and lists the tools, so that what the client
// does by default is still what the suite sees.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceclient URL")
		os.Exit(2)
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var sc scenarioContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			fmt.Fprintln(os.Stderr, "conformanceclient: MCP_CONFORMANCE_CONTEXT:", err)
			os.Exit(2)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := run(ctx, os.Args[len(os.Args)-1], scenario, sc); err != nil {
		fmt.Fprintf(os.Stderr, "conformanceclient: %s: %v\n", scenario, err)
		os.Exit(1)
	}
}

// scenarioContext is what a scenario passes in MCP_CONFORMANCE_CONTEXT.
type scenarioContext struct {
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

// driver does what one scenario observes, on a connected client.
type driver func(ctx context.Context, c *client.Conn, sc scenarioContext) error

var drivers = map[string]driver{
	"initialize":                       func(context.Context, *client.Conn, scenarioContext) error { return nil },
	"request-metadata":                 listOnly,
	"json-schema-ref-no-deref":         listOnly,
	"tools_call":                       callAddNumbers,
	"http-standard-headers":            callFirstTool,
	"http-custom-headers":              callFromContext,
	"http-invalid-tool-headers":        callEveryTool,
	"json-schema-2020-12-preservation": echoSchema,
}

func run(ctx context.Context, url, scenario string, sc scenarioContext) error {
	opts := client.Options{
		ClientInfo: client.Implementation{Name: "repo-mcp-conformance-client", Version: "0.1.0"},
		// The suite saves stderr beside each scenario's checks: the
		// client's own account of what it did and why.
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
		// The suite runs every scenario at once: on a loaded machine a
		// mock server can take seconds to answer, and a discover timeout
		// would fall back to initialize, which is not what is tested.
		Timeouts: client.Timeouts{Discover: 20 * time.Second},
	}
	c, err := client.Dial(ctx, client.Endpoint{URL: url}, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Printf("connected: %+v\n", c.Server())
	d, ok := drivers[scenario]
	if !ok {
		d = listOnly
	}
	return d(ctx, c, sc)
}

func listOnly(ctx context.Context, c *client.Conn, _ scenarioContext) error {
	tools, err := c.Tools(ctx)
	fmt.Printf("%d tools\n", len(tools))
	return err
}

// callAddNumbers calls the tools_call scenario's add_numbers tool.
func callAddNumbers(ctx context.Context, c *client.Conn, _ scenarioContext) error {
	if _, err := c.Tools(ctx); err != nil {
		return err
	}
	res, err := c.Call(ctx, "add_numbers", map[string]int{"a": 5, "b": 3})
	if err != nil {
		return err
	}
	fmt.Println(res.Text())
	return nil
}

// callFirstTool makes one tools/call, so the scenario sees its Mcp-Method
// and Mcp-Name headers.
func callFirstTool(ctx context.Context, c *client.Conn, _ scenarioContext) error {
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) == 0 {
		return err
	}
	_, err = c.Call(ctx, tools[0].Name, map[string]any{})
	return err
}

// callFromContext makes the calls the scenario lists, so that it sees the
// Mcp-Param-* headers the tools' x-mcp-header marks ask for. A call the
// server refuses is reported but does not end the run: the scenario
// judges the headers, not the answers.
func callFromContext(ctx context.Context, c *client.Conn, sc scenarioContext) error {
	if _, err := c.Tools(ctx); err != nil {
		return err
	}
	for _, call := range sc.ToolCalls {
		if _, err := c.Call(ctx, call.Name, call.Arguments); err != nil {
			fmt.Printf("call %s: %v\n", call.Name, err)
		}
	}
	return nil
}

// callEveryTool calls each tool Tools kept: the scenario checks that the
// tools with invalid x-mcp-header marks were left out and the valid one
// was not.
func callEveryTool(ctx context.Context, c *client.Conn, _ scenarioContext) error {
	tools, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%d tools kept, %d left out\n", len(tools), c.Stats().RejectedTools)
	for _, t := range tools {
		if _, err := c.Call(ctx, t.Name, map[string]any{"region": "us-west1"}); err != nil {
			fmt.Printf("call %s: %v\n", t.Name, err)
		}
	}
	return nil
}

// echoSchema sends the focal tool's inputSchema back through the echo
// tool, so the scenario can see that the client kept every keyword.
func echoSchema(ctx context.Context, c *client.Conn, _ scenarioContext) error {
	tools, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(tools, func(t client.Tool) bool { return t.Name == "json_schema_2020_12_tool" })
	if i < 0 {
		return fmt.Errorf("tool json_schema_2020_12_tool not listed")
	}
	_, err = c.Call(ctx, "json_schema_echo", map[string]json.RawMessage{"schema": tools[i].InputSchema})
	return err
}
