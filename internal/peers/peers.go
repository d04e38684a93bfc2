// Package peers finds the MCP implementations written elsewhere (reference
// servers, the conformance suite, the inspector) that tests run against.
//
// They are installed, pinned, by .ci/install-peers into a folder named by the
// environment variable REPO_MCP_PEERS. When it is unset a test that needs them
// is skipped, unless REPO_MCP_REQUIRE_PEERS=1 (set by CI), in which case it
// fails: in CI a missing peer is a failure, never a silent skip.
package peers

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the peers folder, or skips (or, when peers are required, fails) t.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("REPO_MCP_PEERS")
	if dir == "" {
		missing(t, "REPO_MCP_PEERS is not set")
		return ""
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		missing(t, "peers not installed in REPO_MCP_PEERS="+dir+": "+err.Error())
		return ""
	}
	return dir
}

// Node returns the path of the pinned Node 22 binary in the peers folder.
func Node(t testing.TB) string {
	t.Helper()
	node := filepath.Join(Dir(t), "node22", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		missing(t, "Node 22 not installed: "+err.Error())
	}
	return node
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("REPO_MCP_REQUIRE_PEERS") == "1" {
		t.Fatalf("peers required (REPO_MCP_REQUIRE_PEERS=1): %s; run .ci/install-peers", why)
	}
	t.Skipf("skipping: %s (run .ci/install-peers and set REPO_MCP_PEERS)", why)
}
