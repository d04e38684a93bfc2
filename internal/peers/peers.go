// Package peers finds the MCP implementations written elsewhere that tests
// run against: the conformance suite, the inspector CLI and the reference
// servers (npm packages), and Node 22 to run them. .ci/install-peers
// installs them, pinned, into a folder that REPO_MCP_PEERS names.
//
// Without REPO_MCP_PEERS a test that needs them skips; with
// REPO_MCP_REQUIRE_PEERS=1 (as in CI) it fails instead, so CI can never
// pass by skipping.
package peers

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the peers folder, or skips (or fails, when peers are
// required) the test.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("REPO_MCP_PEERS")
	if dir == "" {
		missing(t, "REPO_MCP_PEERS is not set (run .ci/install-peers DIR and export REPO_MCP_PEERS=DIR)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		missing(t, "REPO_MCP_PEERS="+dir+" holds no installed peers: "+err.Error())
	}
	return dir
}

// Node returns the path of the Node 22 binary among the peers.
func Node(t testing.TB) string {
	t.Helper()
	node := filepath.Join(Dir(t), "node22", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		missing(t, "no Node 22 among the peers: "+err.Error())
	}
	return node
}

// Bin returns the path of an installed npm package's executable.
func Bin(t testing.TB, name string) string {
	t.Helper()
	bin := filepath.Join(Dir(t), "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		missing(t, "peer "+name+" is not installed: "+err.Error())
	}
	return bin
}

// Env returns the environment for running a peer: the test's own, with
// Node 22 first in PATH.
func Env(t testing.TB) []string {
	t.Helper()
	return append(os.Environ(), "PATH="+filepath.Dir(Node(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("REPO_MCP_REQUIRE_PEERS") == "1" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// Gopls returns the path of the pinned gopls among the peers.
func Gopls(t testing.TB) string {
	t.Helper()
	gopls := filepath.Join(Dir(t), "gobin", "gopls")
	if _, err := os.Stat(gopls); err != nil {
		missing(t, "gopls is not installed among the peers: "+err.Error())
	}
	return gopls
}

// Package returns the folder of an installed npm package (for a script
// that loads it from there).
func Package(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(Dir(t), "node_modules", filepath.FromSlash(name))
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		missing(t, "npm package "+name+" is not installed among the peers: "+err.Error())
	}
	return dir
}
