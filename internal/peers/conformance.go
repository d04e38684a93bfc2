package peers

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Conformance runs the MCP conformance suite's server mode against the
// Streamable HTTP endpoint url. baseline is the expected-failures file:
// the run fails on any failure it does not list, and on any scenario it
// lists that passes (so the file cannot go stale). extra adds arguments
// (for example "--requirements", "2026-07-28").
func Conformance(t *testing.T, url, baseline string, extra ...string) {
	t.Helper()
	bin := Bin(t, "conformance")
	Node(t)
	args := append([]string{"server", "--url", url, "--expected-failures", baseline, "-o", outDir(t)}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = Env(t)
	out, err := cmd.CombinedOutput()
	summary := string(out)
	if i := strings.Index(summary, "=== SUMMARY ==="); i >= 0 {
		summary = summary[i:]
	}
	if err != nil {
		t.Errorf("conformance %s: %v\n%s", strings.Join(extra, " "), err, summary)
		return
	}
	t.Logf("conformance %s:\n%s", strings.Join(extra, " "), summary)
}

// StartHTTP starts a server command that prints its URL (http://...) on
// stderr, waits for that line, and returns the URL. The process is killed
// when the test ends.
func StartHTTP(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	urls := regexp.MustCompile(`http://[0-9.:\[\]a-z]+/mcp`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u := urls.FindString(sc.Text()); u != "" {
			go io.Copy(io.Discard, stderr)
			return u
		}
	}
	t.Fatalf("%s exited without printing its URL", filepath.Base(name))
	return ""
}

// Inspector runs the inspector CLI (2.x) against a stdio server command
// and returns its JSON output.
func Inspector(ctx context.Context, t *testing.T, server []string, args ...string) []byte {
	t.Helper()
	bin := Bin(t, "mcp-inspector")
	full := append([]string{"--cli", "--format", "json", "-q"}, args...)
	full = append(append(full, "--"), server...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = Env(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// outDir is where the suite writes its results: REPO_MCP_CONFORMANCE_OUT
// when set (to keep them), else a temporary folder.
func outDir(t *testing.T) string {
	if dir := os.Getenv("REPO_MCP_CONFORMANCE_OUT"); dir != "" {
		return filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	return t.TempDir()
}
