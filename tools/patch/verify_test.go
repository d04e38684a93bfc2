package patch_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/workspace"
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
		UID        bool     `json:"uid"`
		Filesystem bool     `json:"filesystem"`
		PID        bool     `json:"pid"`
		Network    bool     `json:"network"`
		Limits     bool     `json:"limits"`
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

func verifyFixture(t *testing.T, timeout time.Duration, policies ...workspace.PolicyConfig) *fixture {
	t.Helper()
	return verifyFixtureWith(t, verify.Options{Timeout: timeout}, policies...)
}

// verifyFixtureWith is verifyFixture with the verify options given.
func verifyFixtureWith(t *testing.T, opts verify.Options, policies ...workspace.PolicyConfig) *fixture {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	if !canSandbox() {
		t.Skip("verify's sandbox needs bubblewrap and a server run as root (to switch to an unprivileged uid)")
	}
	opts.BuildCache = buildCache
	return newFixture(t, fixtureOptions{policies: policies, opts: patch.Options{Verify: opts}})
}

// canSandbox reports whether verify can build its sandbox here: it needs
// bubblewrap, and root to switch to the sandbox uid.
func canSandbox() bool {
	_, err := exec.LookPath("bwrap")
	return err == nil && os.Getuid() == 0
}

func TestVerifyPassingAndFailing(t *testing.T) {
	f := verifyFixture(t, 5*time.Minute)
	v := ok[verified](t, f, "verify_patch", map[string]any{})
	if !v.Passed || len(v.Checks) != 4 || v.Revision != f.head {
		t.Fatalf("verify HEAD: %+v", v)
	}
	if iso := v.Isolation; !iso.UID || !iso.Filesystem || !iso.PID || !iso.Network || !iso.Limits {
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
	// 75s, so that building the tests fits on a loaded machine; the
	// looping test then runs until go test's own -timeout (45s).
	f := verifyFixture(t, 75*time.Second)
	ok[verified](t, f, "verify_patch", map[string]any{"checks": []any{map[string]any{"name": "go_test"}}}) // warm the cache

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed := countDials(ln)
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
	if v.Passed || !strings.Contains(v.Checks[0].Output, "panic: test timed out after 45s") || !strings.Contains(v.Checks[0].Output, "TestLoop") {
		t.Errorf("a looping test did not end in go test's timeout dump: %+v", v)
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

// TestVerifySandboxAttacks runs, through verify_patch, a test file that
// tries each escape of issue 20: each attempt must fail inside the check,
// so the test passes, and nothing may reach outside.
func TestVerifySandboxAttacks(t *testing.T) {
	// The check gets one uid, apart from other tests' checks, so that a
	// victim outside can run as it.
	const sandboxUID = 65620
	f := verifyFixtureWith(t, verify.Options{Timeout: 3 * time.Minute, UID: sandboxUID, UIDCount: 1}, workspace.PolicyConfig{
		Identity: "local", Workspaces: []string{"*"}, Actions: []workspace.Action{"read", "propose", "verify"}, Deny: []string{"docs/**"},
	})
	outsideFile := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outsideFile, []byte("outside"), 0o644)
	sockDir := t.TempDir()
	sock := filepath.Join(sockDir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed := countDials(ln)
	// The victim runs as the sandbox uid: only the PID namespace keeps a
	// check's signals from it.
	victim := exec.Command("sleep", "300")
	runAs(victim, sandboxUID)
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	marker := fmt.Sprintf("setsid-%x", rand.Uint64())
	attacks := fmt.Sprintf(`package main

import (
	"os"
	"os/exec"
	"errors"
	"fmt"
	"net"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
)

// wsRoot is the workspace on the host, written in two pieces: the server
// refuses to echo a host path whole.
var wsRoot = %[1]q + %[6]q

func mustFail(t *testing.T, what string, err error) {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path would name the host's directories
	}
	if err == nil {
		t.Errorf("%%s succeeded", what)
	} else {
		t.Logf("%%s refused: %%v", what, err)
	}
}

func TestShadow(t *testing.T) {
	_, err := os.ReadFile("/etc/shadow")
	mustFail(t, "reading /etc/shadow", err)
}

func TestProcWalk(t *testing.T) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		for _, p := range []string{"root/.env", "cwd/.env", "root" + wsRoot + "/.env", "root" + wsRoot + "/.git/config"} {
			if _, err := os.ReadFile(filepath.Join("/proc", e.Name(), p)); err == nil {
				t.Errorf("read %%s through /proc/%%s", p, e.Name())
			}
		}
	}
	// The workspace's .env (a secret), its .git, the export's .env and a
	// file the policy denies, the same in the workspace, a file outside
	// every workspace. (Named by number: the output must not name the
	// host's directories.)
	for i, p := range []string{wsRoot + "/.env", wsRoot + "/.git/config", ".env", "docs/a.txt", wsRoot + "/docs/a.txt", %[2]q} {
		_, err := os.ReadFile(p)
		mustFail(t, fmt.Sprintf("reading file %%d", i), err)
	}
}

func TestKill(t *testing.T) {
	mustFail(t, "signalling the outside pid", syscall.Kill(%[3]d, syscall.SIGKILL))
}

func TestUnixSocket(t *testing.T) {
	_, err := net.Dial("unix", %[4]q)
	mustFail(t, "connecting to the outside socket", err)
}

func TestForkBomb(t *testing.T) {
	var cmds []*exec.Cmd
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	var err error
	for range 3000 {
		c := exec.Command("/verify/go/bin/go", "env", "-h")
		c.Env = []string{"GOROOT=/verify/go"}
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err = c.Start(); err != nil {
			break
		}
		cmds = append(cmds, c)
	}
	if err == nil {
		t.Errorf("started %%d processes", len(cmds))
	}
	t.Logf("started %%d processes, then %%v", len(cmds), err)
}

func TestDiskFill(t *testing.T) {
	buf := make([]byte, 1<<20)
	total := 0
	var err error
	// The fill is removed once measured: the output of the tests after
	// this one must still have room to be written.
	defer func() {
		for i := 0; i < 8; i++ {
			os.Remove(filepath.Join(os.TempDir(), fmt.Sprint("fill", i)))
		}
	}()
	for i := 0; i < 8 && err == nil; i++ { // files of 512 MiB, under the file size limit
		var f *os.File
		f, err = os.Create(filepath.Join(os.TempDir(), fmt.Sprint("fill", i)))
		for n := 0; n < 512 && err == nil; n++ {
			if _, err = f.Write(buf); err == nil {
				total++
			}
		}
		f.Close()
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("wrote %%d MiB, then %%v", total, err)
	}
	t.Logf("wrote %%d MiB, then %%v", total, err)
}

func TestSetsidSurvivor(t *testing.T) {
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "SURVIVOR=1")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	c.Process.Release()
}

// TestZKillAll runs last: it signals every process the sandbox uid may
// signal, which ends the check (its go command dies) but must reach no
// process outside, though one outside runs as the same uid. It waits
// first: the go command forwards this binary's output as it reads it, and
// the lines of the tests before this one, still in its pipe, would die
// with it (under load, TestDiskFill's PASS went so).
func TestZKillAll(t *testing.T) {
	syscall.Nanosleep(&syscall.Timespec{Sec: 2}, nil)
	syscall.Kill(-1, syscall.SIGTERM)
}

func TestMain(m *testing.M) {
	if os.Getenv("SURVIVOR") == "1" {
		signal.Ignore(syscall.SIGTERM)
		// Outlive the check, then try to plant in every cache we can name.
		for range 20 {
			for _, d := range []string{os.Getenv("GOCACHE"), "/verify/cache", "/verify/cache/a", "/verify/modcache"} {
				os.WriteFile(filepath.Join(d, %[5]q), []byte("planted"), 0o644)
			}
			syscall.Nanosleep(&syscall.Timespec{Sec: 1}, nil)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
`, f.dir[:len(f.dir)/2], outsideFile, victim.Process.Pid, sock, marker, f.dir[len(f.dir)/2:])
	// As in TestVerifyHostileTests, the module's own name, which its test
	// binary bears, tells this check's processes from another run's.
	module := fmt.Sprintf("attack%x", rand.Uint64())
	g := generate(t, f, edit("write", "attack_test.go", "content", attacks),
		edit("replace", "go.mod", "old_text", "example.com/fx", "new_text", "example.com/"+module))
	v := ok[verified](t, f, "verify_patch", map[string]any{"patch_id": g.PatchID, "checks": []any{map[string]any{"name": "go_test"}}})
	out := v.Checks[0].Output
	t.Logf("output:\n%s", out)
	for _, name := range []string{"Shadow", "ProcWalk", "Kill", "UnixSocket", "ForkBomb", "DiskFill"} {
		if !strings.Contains(out, "--- PASS: Test"+name+" ") {
			t.Errorf("Test%s did not pass: an attack was not contained", name)
		}
	}
	// The survivor's and the kill's lines may be lost with the go command
	// the kill ends; what they did is checked below.
	if !strings.Contains(out, "=== RUN   TestSetsidSurvivor") {
		t.Error("TestSetsidSurvivor did not run")
	}
	if v.Passed || v.Checks[0].ExitCode == 0 {
		t.Errorf("the check survived kill(-1): %+v", v.Checks[0])
	}
	if dialed.Load() != 0 {
		t.Error("a check connected to a Unix socket outside its sandbox")
	}
	if victim.ProcessState != nil || victim.Process.Signal(syscall.Signal(0)) != nil {
		t.Error("a check killed a process outside its sandbox")
	}
	time.Sleep(3 * time.Second) // a survivor would plant by now
	if live := liveProcesses(t, module+".test"); len(live) > 0 {
		t.Errorf("processes of the check survive it: %v", live)
	}
	filepath.WalkDir(buildCache, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), marker) {
			t.Errorf("a check planted %s in the shared build cache", p)
		}
		return nil
	})
}

// testKey is a test fixture that a secret pattern (*.pem) matches.
const testKey = "-----BEGIN TEST KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END TEST KEY-----\n"

// TestVerifySecretFixtures checks that a secret-pattern file under
// testdata/ is exported for the checks, which pass reading it, and that
// its content is redacted from the output, which names it; a fixture the
// caller's policy denies and a secret outside testdata/ stay out.
func TestVerifySecretFixtures(t *testing.T) {
	f := verifyFixture(t, 3*time.Minute, workspace.PolicyConfig{
		Identity: "local", Workspaces: []string{"*"}, Actions: []workspace.Action{"read", "propose", "verify"}, Deny: []string{"testdata/private/**"},
	})
	files := map[string]string{
		"testdata/key.pem":       testKey,
		"testdata/private/x.pem": testKey,
		"testdata/.ssh/known":    "not matched itself, but below a denied directory\n",
		"config/server.pem":      testKey,
		"fixture_test.go": `package main

import (
	"os"
	"testing"
)

func TestFixtures(t *testing.T) {
	key, err := os.ReadFile("testdata/key.pem")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the key:\n%s", key)
	for _, p := range []string{"testdata/private/x.pem", "config/server.pem", ".env"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was exported", p)
		}
	}
	if _, err := os.Stat("testdata/.ssh/known"); err != nil {
		t.Error(err)
	}
}
`,
	}
	for name, content := range files {
		p := filepath.Join(f.dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	gitfixture.Git(t, f.dir, "add", "-f", ".")
	gitfixture.Git(t, f.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "fixtures")
	res := f.call(t, "verify_patch", map[string]any{"checks": []any{map[string]any{"name": "go_test"}}})
	if res.IsError {
		t.Fatal(res.Text)
	}
	var v struct {
		verified
		Export struct {
			Fixtures []string `json:"fixtures"`
		} `json:"export"`
	}
	json.Unmarshal(res.Structured, &v)
	if !v.Passed {
		t.Fatalf("the fixture test failed: %+v", v)
	}
	if got := strings.Join(v.Export.Fixtures, ","); got != "testdata/.ssh/known,testdata/key.pem" {
		t.Errorf("fixtures exported: %q", got)
	}
	for _, line := range strings.Split(strings.TrimSpace(testKey), "\n") {
		if strings.Contains(res.Text, line) || strings.Contains(string(res.Structured), line) {
			t.Errorf("the output shows the fixture's line %q", line)
		}
	}
	if !strings.Contains(v.Checks[0].Output, "[redacted]") || !strings.Contains(res.Text, "testdata/key.pem") {
		t.Errorf("the result does not say what it redacted:\n%s", res.Text)
	}
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
	// gofmt ends within milliseconds: the throttle (four reports a second,
	// the newest kept) may fold its reports into go_test's first one, so it
	// need not be named; the slow check must be, with its output.
	var sawTest, sawTail bool
	for i, p := range progress {
		if p.Total != 2 || (i > 0 && p.Progress <= progress[i-1].Progress) {
			t.Errorf("notification %d: %+v; want increasing progress of 2 checks", i, p)
		}
		sawTest = sawTest || strings.HasPrefix(p.Message, "go_test (check 2 of 2)")
		sawTail = sawTail || (strings.HasPrefix(p.Message, "go_test (check 2 of 2)") && strings.Contains(p.Message, "ok  \texample.com/fx\t"))
	}
	if !sawTest || !sawTail {
		t.Errorf("go_test named %t, go_test's output shown %t; want both:\n%+v", sawTest, sawTail, progress)
	}
	// The slow test prints nothing for 3 s: the beat fills the silence.
	if len(progress) < 5 {
		t.Errorf("%d notifications over a run of more than three seconds; want one a second at least: %+v", len(progress), progress)
	}
	if last := progress[len(progress)-1]; last.Progress != 2 || last.Message != "go_test done (2 of 2)" {
		t.Errorf("last notification %+v; want the run's end", last)
	}
}

// countDials accepts every connection to ln until it closes, and counts
// them: a check that reaches ln has left its sandbox.
func countDials(ln net.Listener) *atomic.Int32 {
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
	return &dialed
}
