package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// TestGoSDKClient drives the testserver binary with the official go-sdk
// client in each protocol era it offers.
func TestGoSDKClient(t *testing.T) {
	for _, tt := range []struct{ ask, want string }{
		{"", "2026-07-28"}, // go-sdk's default: server/discover first
		{"2025-11-25", "2025-11-25"},
		{"2025-03-26", "2025-03-26"},
	} {
		t.Run("version "+tt.want, func(t *testing.T) {
			ctx := context.Background()
			client := mcp.NewClient(&mcp.Implementation{Name: "peer-test", Version: "0"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(testserver(t))},
				&mcp.ClientSessionOptions{ProtocolVersion: tt.ask})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != tt.want {
				t.Errorf("negotiated %s, want %s", got, tt.want)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 {
				t.Fatalf("list tools: %v (%d tools)", err, len(tools.Tools))
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "hello") {
				t.Errorf("echo: %+v", res)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"Message": "x"}})
			if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "invalid_input: ") {
				t.Errorf("invalid call: %v %+v", err, res)
			}
		})
	}
}

// TestConformance runs the official conformance suite against the
// testserver over Streamable HTTP, in the legacy suite and at the
// 2026-07-28 requirements. The baselines list only scenarios for features
// the framework does not offer, each with its reason.
func TestConformance(t *testing.T) {
	peers.Node(t)
	url := peers.StartHTTP(t, testserver(t), "-http", "127.0.0.1:0")
	t.Run("active", func(t *testing.T) {
		peers.Conformance(t, url, "testdata/conformance-active.yml")
	})
	t.Run("2026-07-28", func(t *testing.T) {
		peers.Conformance(t, url, "testdata/conformance-2026-07-28.yml", "--requirements", "2026-07-28")
	})
}

// TestInspector lists and calls tools with the TypeScript SDK's client, by
// way of the inspector CLI, in both eras.
func TestInspector(t *testing.T) {
	ctx := context.Background()
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			out := peers.Inspector(ctx, t, []string{testserver(t)}, "--protocol-era", era, "--method", "tools/list")
			var list struct {
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &list); err != nil || len(list.Result.Tools) < 6 {
				t.Fatalf("tools/list: %v: %s", err, out)
			}
			out = peers.Inspector(ctx, t, []string{testserver(t)}, "--protocol-era", era, "--method", "tools/call",
				"--tool-name", "echo", "--tool-arg", "message=from the inspector")
			if !strings.Contains(string(out), "from the inspector") {
				t.Errorf("tools/call: %s", out)
			}
		})
	}
}

// TestTypeScriptSDKProgress shows what progress notifications are for: the
// TypeScript SDK's client gives up on a request after its timeout (60 s by
// default) unless progress arrives and it was told to reset the timeout on
// progress. A call that sleeps longer than the client's timeout completes
// when the client asks for progress, and fails without it; over stdio, and
// over Streamable HTTP, where the progress travels on the call's SSE
// response.
func TestTypeScriptSDKProgress(t *testing.T) {
	node := peers.Node(t)
	peers.Package(t, "@modelcontextprotocol/sdk")
	const sleepMs, timeoutMs = 8000, 3000
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			target := testserver(t)
			if mode == "http" {
				target = peers.StartHTTP(t, target, "-http", "127.0.0.1:0")
			}
			cmd := exec.Command(node, "testdata/progress-client.cjs", peers.Dir(t), mode, target,
				strconv.Itoa(sleepMs), strconv.Itoa(timeoutMs))
			cmd.Env = peers.Env(t)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("progress-client: %v\n%s", err, stderr.String())
			}
			type call struct {
				Progress      bool   `json:"progress"`
				Notifications int    `json:"notifications"`
				IsError       bool   `json:"isError"`
				Text          string `json:"text"`
				Error         string `json:"error"`
				Code          int    `json:"code"`
				MS            int    `json:"ms"`
			}
			var calls []call
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var c call
				if err := json.Unmarshal([]byte(line), &c); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				calls = append(calls, c)
			}
			if len(calls) != 2 {
				t.Fatalf("want 2 calls, got %s", out)
			}
			with, without := calls[0], calls[1]
			t.Logf("with progress: %+v; without: %+v", with, without)
			if with.IsError || with.Error != "" || !strings.Contains(with.Text, `"text":"slept"`) {
				t.Errorf("with progress, the %d ms call did not complete under a %d ms timeout: %+v", sleepMs, timeoutMs, with)
			}
			if with.MS < sleepMs || with.Notifications < sleepMs/1000-2 {
				t.Errorf("with progress: %d notifications in %d ms; want about one a second for %d ms", with.Notifications, with.MS, sleepMs)
			}
			// -32001 is the SDK's RequestTimeout.
			if without.Code != -32001 || without.Notifications != 0 || without.MS >= sleepMs {
				t.Errorf("without progress the call should time out after %d ms: %+v", timeoutMs, without)
			}
		})
	}
}

// TestTypeScriptSDKCancel cancels a call with the TypeScript SDK's client
// over stdio (an AbortSignal, which sends notifications/cancelled): the
// server stops the call, sends no answer for it (the SDK would drop one
// silently, so the audit says what happened), records it as cancelled,
// and goes on serving.
func TestTypeScriptSDKCancel(t *testing.T) {
	node := peers.Node(t)
	peers.Package(t, "@modelcontextprotocol/sdk")
	cmd := exec.Command(node, "testdata/cancel-client.cjs", peers.Dir(t), testserver(t))
	cmd.Env = peers.Env(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cancel-client: %v\n%s", err, stderr.String())
	}
	var res struct{ Cancelled, After string }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if !strings.Contains(res.Cancelled, "stopped") || !strings.Contains(res.After, "slept") {
		t.Errorf("cancel-client = %+v; want the first call aborted, the second answered", res)
	}
	var outcomes []string
	for line := range strings.Lines(stderr.String()) {
		var l struct{ Msg, Tool, Outcome string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "tool call" {
			outcomes = append(outcomes, l.Tool+":"+l.Outcome)
		}
	}
	if got := strings.Join(outcomes, " "); got != "sleep:cancelled sleep:ok" {
		t.Errorf("audit outcomes = %q; want the cancelled call recorded as such\n%s", got, stderr.String())
	}
}
