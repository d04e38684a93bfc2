package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/client"
)

// engineAnswerEnv makes this test binary serve read_file directly on
// go-sdk, over its own stdio transport (see TestMain): every call is
// answered with the result in the file the variable names, whatever the
// arguments. That result is one of ours, as our server sent it, so the
// engine writes an answer of the same size and shape; it does no
// repository work, no validation, audit or authorization. It is what the
// same answer costs from a server written directly on go-sdk, as a
// developer would write it: benchmarkSized's "engine" variant, beside
// "ours" and git. It is no floor for ours, whose frames go through a
// transport of its own (server/frame.go) with less work a call than the
// engine's stdio transport, on a heap kept from collecting too often.
const engineAnswerEnv = "REPO_MCP_BENCH_ENGINE_ANSWER"

// serveEngine serves read_file as engineAnswerEnv says, until stdin closes.
func serveEngine(answerFile string) error {
	data, err := os.ReadFile(answerFile)
	if err != nil {
		return err
	}
	var answer mcp.CallToolResult
	if err := json.Unmarshal(data, &answer); err != nil {
		return fmt.Errorf("%s: %w", answerFile, err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "engine", Version: "v0.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := answer // the engine may fill in a result's fields: a copy a call
			return &res, nil
		})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// startEngine starts this test binary as the engine's server for path: it
// answers every read_file with what ours answers to reading path in one
// page (a file below 1 MiB), which c, a connection to our server, is asked
// for once.
func startEngine(b *testing.B, c *client.Conn, path string) *client.Conn {
	res, err := readFile(c, path)
	if err == nil && res.IsError {
		err = fmt.Errorf("%s", res.Text())
	}
	if err != nil {
		b.Fatal(err)
	}
	answerFile := filepath.Join(b.TempDir(), "answer.json")
	if err := os.WriteFile(answerFile, res.Raw, 0o600); err != nil {
		b.Fatal(err)
	}
	engine, err := client.Start(context.Background(), client.Command{
		Path: os.Args[0],
		Env:  []string{engineAnswerEnv + "=" + answerFile},
	}, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { engine.Close() })
	return engine
}
