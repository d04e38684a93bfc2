package patch_test

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
)

type verified struct {
	Revision string `json:"revision"`
	Passed   bool   `json:"passed"`
	Checks   []struct {
		Name     string `json:"name"`
		Passed   bool   `json:"passed"`
		ExitCode int    `json:"exit_code"`
		TimedOut bool   `json:"timed_out"`
		Output   string `json:"output"`
		Error    string `json:"error"`
	} `json:"checks"`
	Isolation struct {
		Network    bool     `json:"network"`
		Filesystem bool     `json:"filesystem"`
		Notes      []string `json:"notes"`
	} `json:"isolation"`
	Export struct {
		Files   int `json:"files"`
		Omitted int `json:"omitted"`
		Skipped int `json:"skipped"`
	} `json:"export"`
}

// buildCache is shared by the verify tests of one test binary, so the
// standard library is compiled once.
var buildCache = filepath.Join(os.TempDir(), fmt.Sprintf("repo-mcp-patch-test-gocache-%d", os.Getuid()))

func verifyFixture(t *testing.T, timeout time.Duration) *fixture {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	return newFixture(t, fixtureOptions{opts: patch.Options{Verify: verify.Options{Timeout: timeout, BuildCache: buildCache}}})
}

func TestVerifyPassingAndFailing(t *testing.T) {
	f := verifyFixture(t, 5*time.Minute)
	v := ok[verified](t, f, "verify_patch", map[string]any{})
	if !v.Passed || len(v.Checks) != 4 || v.Revision != f.head {
		t.Fatalf("verify HEAD: %+v", v)
	}
	if !v.Isolation.Network || !v.Isolation.Filesystem {
		t.Errorf("isolation: %+v", v.Isolation)
	}
	if v.Export.Omitted != 1 || v.Export.Skipped != 2 { // .env; link and sub
		t.Errorf("export: %+v", v.Export)
	}
	g := generate(t, f, edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"bye"`))
	v = ok[verified](t, f, "verify_patch", map[string]any{"patch_id": g.PatchID, "checks": []any{
		map[string]any{"name": "go_build"}, map[string]any{"name": "go_test", "packages": []string{"./..."}},
	}})
	if v.Passed || !v.Checks[0].Passed || v.Checks[1].Passed || v.Checks[1].ExitCode != 1 || !strings.Contains(v.Checks[1].Output, "bye") {
		t.Errorf("verify a failing patch: %+v", v)
	}
	g = generate(t, f, edit("write", "greet.go", "content", "package main\nfunc greeting() string {return \"hello\"}\n"))
	v = ok[verified](t, f, "verify_patch", map[string]any{"patch_id": g.PatchID, "checks": []any{map[string]any{"name": "gofmt"}}})
	if v.Passed || !strings.Contains(v.Checks[0].Output, "greet.go") {
		t.Errorf("gofmt of unformatted code: %+v", v)
	}
}

func TestVerifyRefuses(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: patch.Options{Verify: verify.Options{Checks: []string{"go_build"}, BuildCache: buildCache}}})
	fails(t, f, "verify_patch", map[string]any{"checks": []any{map[string]any{"name": "go_test"}}}, server.PermissionDenied)
	for _, pkg := range []string{"../x", "./../x", "-exec=sh", "./a/../../b", "/abs", "./x;rm", "std"} {
		fails(t, f, "verify_patch", map[string]any{"checks": []any{map[string]any{"name": "go_build", "packages": []string{pkg}}}}, server.InvalidInput)
	}
	fails(t, f, "verify_patch", map[string]any{"revision": "worktree"}, server.InvalidInput)
	g := generate(t, f, edit("write", "go.mod", "content", "module example.com/fx\n\ngo 1.22\n\nreplace example.com/y => ../../outside\n"))
	text := fails(t, f, "verify_patch", map[string]any{"patch_id": g.PatchID}, server.InvalidInput)
	if !strings.Contains(text, "outside the export") {
		t.Errorf("replace: %s", text)
	}
}

// TestVerifyHostileTests runs test code that misbehaves: it loops forever,
// dials the host, writes outside its directory. The repository's own
// .git/config asks git to run a command (core.fsmonitor): nothing may run it.
func TestVerifyHostileTests(t *testing.T) {
	f := verifyFixture(t, 20*time.Second)
	ok[verified](t, f, "verify_patch", map[string]any{"checks": []any{map[string]any{"name": "go_test"}}}) // warm the cache

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dialed atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialed.Add(1)
			c.Close()
		}
	}()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	gitfixture.Git(t, f.dir, "config", "core.fsmonitor", "touch "+marker)
	gitfixture.Git(t, f.dir, "config", "core.hooksPath", "/nonexistent")

	hostile := fmt.Sprintf(`package main

import (
	"net"
	"os"
	"testing"
)

func TestNetwork(t *testing.T) {
	c, err := net.Dial("tcp", %q)
	if err == nil {
		c.Close()
		t.Fatal("dialed the host")
	}
	t.Log("dial refused:", err)
}

func TestWriteOutside(t *testing.T) {
	err := os.WriteFile(%q, []byte("escaped"), 0o644)
	if err == nil {
		t.Fatal("wrote outside")
	}
	t.Log("write refused:", err)
}
`, ln.Addr().String(), outside)
	g := generate(t, f, edit("write", "hostile_test.go", "content", hostile))
	v := ok[verified](t, f, "verify_patch", map[string]any{"patch_id": g.PatchID, "checks": []any{map[string]any{"name": "go_test"}}})
	if !v.Passed {
		t.Errorf("the hostile tests were not contained: %+v", v)
	}
	if dialed.Load() != 0 {
		t.Errorf("a check reached the host network")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a check wrote outside its directory")
	}

	loop := "package main\n\nimport \"testing\"\n\nfunc TestLoop(t *testing.T) {\n\tfor {\n\t}\n}\n"
	// The module gets a name of its own, which its test binary bears: the
	// processes looked for below are this check's, not those of another
	// run of this test on the machine.
	module := fmt.Sprintf("loop%x", rand.Uint64())
	g = generate(t, f, edit("write", "loop_test.go", "content", loop),
		edit("replace", "go.mod", "old_text", "example.com/fx", "new_text", "example.com/"+module))
	start := time.Now()
	v = ok[verified](t, f, "verify_patch", map[string]any{"patch_id": g.PatchID, "checks": []any{map[string]any{"name": "go_test"}}})
	if v.Passed || !v.Checks[0].TimedOut || v.Checks[0].ExitCode != -1 {
		t.Errorf("a looping test: %+v", v)
	}
	t.Logf("the looping test was stopped after %s", time.Since(start))
	if live := liveProcesses(t, module+".test"); len(live) > 0 {
		t.Errorf("processes of the killed check survive: %v", live)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("verify ran the repository's core.fsmonitor")
	}
}

// liveProcesses lists the running (not zombie) processes whose command
// line holds name.
func liveProcesses(t *testing.T, name string) []string {
	out, _ := exec.Command("pgrep", "-f", name).Output()
	var live []string
	for _, pid := range strings.Fields(string(out)) {
		status, err := os.ReadFile("/proc/" + pid + "/status")
		if err == nil && !strings.Contains(string(status), "State:\tZ") {
			live = append(live, pid)
		}
	}
	return live
}

// TestVerifyProgress checks what a client waiting for verify_patch hears:
// each check as it starts, with the tail of its output as it prints, a
// beat while it prints nothing (a silent go test), and the end, all in
// increasing progress; so a client whose timeout resets on progress keeps
// waiting.
func TestVerifyProgress(t *testing.T) {
	f := verifyFixture(t, 5*time.Minute)
	// go test prints a package's result when it ends: the fixture's own
	// package ends at once, and its line is the output while slow runs.
	slow := "package slow\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(3 * time.Second) }\n"
	if err := os.MkdirAll(filepath.Join(f.dir, "slow"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "slow", "slow_test.go"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	gitfixture.Git(t, f.dir, "add", "slow")
	gitfixture.Git(t, f.dir, "commit", "-q", "-m", "a slow test")
	res, progress := f.client.CallProgress("verify_patch", map[string]any{"workspace_id": "repo",
		"checks": []map[string]any{{"name": "gofmt"}, {"name": "go_test", "packages": []string{"./..."}}}})
	if res.IsError || !strings.Contains(res.Text, "passed") {
		t.Fatalf("verify: %s", res.Text)
	}
	var sawGofmt, sawTest, sawTail bool
	for i, p := range progress {
		if p.Total != 2 || (i > 0 && p.Progress <= progress[i-1].Progress) {
			t.Errorf("notification %d: %+v; want increasing progress of 2 checks", i, p)
		}
		sawGofmt = sawGofmt || strings.HasPrefix(p.Message, "gofmt ") // running or done: it is quick
		sawTest = sawTest || strings.HasPrefix(p.Message, "go_test (check 2 of 2)")
		sawTail = sawTail || (strings.HasPrefix(p.Message, "go_test (check 2 of 2)") && strings.Contains(p.Message, "ok  \texample.com/fx\t"))
	}
	if !sawGofmt || !sawTest || !sawTail {
		t.Errorf("gofmt named %t, go_test named %t, go_test's output shown %t; want all:\n%+v", sawGofmt, sawTest, sawTail, progress)
	}
	// The slow test prints nothing for 3 s: the beat fills the silence.
	if len(progress) < 5 {
		t.Errorf("%d notifications over a run of more than three seconds; want one a second at least: %+v", len(progress), progress)
	}
	if last := progress[len(progress)-1]; last.Progress != 2 || last.Message != "go_test done (2 of 2)" {
		t.Errorf("last notification %+v; want the run's end", last)
	}
}
