package gitfixture

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// GoSource builds, in dir (which must not exist), a repository holding
// $(go env GOROOT)/src in one commit on main, packed: the corpus the
// benchmarks measure against (about 13 000 files). It takes tens of
// seconds; benchmarks build it once per run, or reuse one named by the
// environment variable REPO_MCP_BENCH_REPO.
func GoSource(t T, dir string) {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("gitfixture: go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		t.Fatalf("gitfixture: copying GOROOT/src: %v: %s", err, out)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "config", "gc.auto", "0")
	Git(t, dir, "add", "-A")
	Git(t, dir, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "snapshot of GOROOT/src")
	Git(t, dir, "gc", "-q")
}
