package client_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// netnsEnv marks a test binary re-run inside a private network namespace.
const netnsEnv = "REPO_MCP_TEST_IN_NETNS"

// inPrivateNetwork runs the calling test again, alone, in a new network
// namespace whose only interface is loopback, and reports false; in that
// run it reports true. Peers that listen on every interface (PEERS.md)
// are then reachable only from the test. Without unshare, or without the
// right to use it, the test is skipped.
func inPrivateNetwork(t *testing.T) bool {
	t.Helper()
	if os.Getenv(netnsEnv) == "1" {
		return true
	}
	unshare, err1 := exec.LookPath("unshare")
	_, err2 := exec.LookPath("ip")
	if err1 != nil || err2 != nil {
		t.Skip("unshare or ip is not installed: cannot keep a peer that listens on every interface off the network")
	}
	// As root, a network namespace alone; otherwise inside a user
	// namespace, where that is allowed.
	var flags string
	var refusals []string
	for _, f := range []string{"-n", "-rn"} {
		out, err := exec.Command(unshare, f, "sh", "-c", "ip link set lo up").CombinedOutput()
		if err == nil {
			flags = f
			break
		}
		refusals = append(refusals, fmt.Sprintf("unshare %s: %v: %s", f, err, strings.TrimSpace(string(out))))
	}
	if flags == "" {
		t.Skipf("no private network namespace here (%s): cannot keep the peer off the network", strings.Join(refusals, "; "))
	}
	cmd := exec.Command(unshare, flags, "sh", "-c", `ip link set lo up && exec "$@"`, "sh",
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), netnsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a private network namespace: %v\n%s", t.Name(), err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s did not pass in the private network namespace:\n%s", t.Name(), out)
	}
	t.Logf("in a private network namespace:\n%s", out)
	return false
}

// TestPeerServerEverythingHTTP runs the client against the TypeScript
// reference server's Streamable HTTP mode (a legacy server with sessions).
func TestPeerServerEverythingHTTP(t *testing.T) {
	server := nodeServer(t, "server-everything", "streamableHttp")
	if !inPrivateNetwork(t) {
		return
	}
	cmd := exec.Command(server.Path, server.Args...)
	cmd.Env = append(os.Environ(), "PORT=3917")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "listening on port 3917") {
	}
	go func() {
		for sc.Scan() {
		}
	}()

	ctx := context.Background()
	c, err := client.Dial(ctx, client.Endpoint{URL: "http://127.0.0.1:3917/mcp"}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if s := c.Server(); s.Modern || s.ProtocolVersion != client.LegacyVersion || s.Implementation.Name == "" {
		t.Errorf("Server() = %+v; want a legacy session with a name", s)
	}
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) < 10 {
		t.Fatalf("Tools() = %s, %v", toolNames(tools), err)
	}
	res, err := c.Call(ctx, "echo", map[string]string{"message": "over HTTP"})
	if err != nil || res.Text() != "Echo: over HTTP" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	res, err = c.Call(ctx, "get-sum", map[string]int{"a": 1, "b": 2})
	if err != nil || !strings.Contains(res.Text(), "3") {
		t.Fatalf("get-sum = %+v, %v", res, err)
	}
	if s := c.Stats(); s.UnknownID+s.WrongIDType+s.NonJSON+s.Malformed != 0 {
		t.Errorf("Stats = %+v; want no anomalies", s)
	}
}

// TestConformanceClientMode runs every client scenario of the conformance
// suite (--suite all): for each it starts a mock server and runs
// internal/conformanceclient, which speaks to it through Dial. The
// scenarios the client does not meet are listed, each with its reason, in
// the baseline; the suite fails on any other failure, and on a listed
// scenario that passes.
func TestConformanceClientMode(t *testing.T) {
	conformance := peers.Bin(t, "conformance")
	env := peers.Env(t)
	if !inPrivateNetwork(t) {
		return
	}
	bin := build(t, "github.com/repo-mcp/repo-mcp/client/internal/conformanceclient")
	baseline, err := filepath.Abs("internal/conformanceclient/baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(conformance, "client", "--command", bin, "--suite", "all",
		"--expected-failures", baseline, "--timeout", "90000", "-o", t.TempDir())
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	summary := string(out)
	if i := strings.Index(summary, "=== SUITE SUMMARY ==="); i >= 0 {
		summary = summary[i:]
	}
	if err != nil {
		t.Fatalf("conformance client --suite all: %v\n%s", err, summary)
	}
	t.Logf("conformance client --suite all:\n%s", summary)
}
