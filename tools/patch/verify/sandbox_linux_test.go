package verify

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func sandboxChecker(t *testing.T, opts Options) *Checker {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the sandbox switches to an unprivileged uid only when the server runs as root")
	}
	opts.SelfHelper = true
	if opts.BuildCache == "" {
		opts.BuildCache = filepath.Join(os.TempDir(), "repo-mcp-verify-test-cache")
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sandbox().err; err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	return c
}

const httptestModule = `package m

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func get(t *testing.T, url string) {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hi" {
		t.Fatalf("got %q", b)
	}
}

func handler(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }

func TestLoopback4(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(handler))
	defer s.Close()
	get(t, s.URL)
}

func TestLoopback6(t *testing.T) {
	s := httptest.NewUnstartedServer(http.HandlerFunc(handler))
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Listener = ln
	s.Start()
	defer s.Close()
	get(t, s.URL)
}

func TestLocalhost(t *testing.T) {
	ln, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}
`

// TestSandboxHTTPTest runs tests that serve HTTP on loopback, 127.0.0.1
// and ::1, in the sandbox: each property holds, and the tests pass.
func TestSandboxHTTPTest(t *testing.T) {
	c := sandboxChecker(t, Options{Timeout: 2 * time.Minute})
	dir := writeModuleFiles(t, map[string]string{
		"go.mod":        "module m\n\ngo 1.22\n",
		"m_test.go":     strings.Replace(httptestModule, `"io"`, "\"io\"\n\t\"net\"", 1),
		"sub/s.go":      "package sub\n\nfunc S() int { return 1 }\n",
		"sub/s_test.go": "package sub\n\nimport \"testing\"\n\nfunc TestS(t *testing.T) { t.Log(\"sub ran\") }\n",
	})
	rep := c.Run(t.Context(), dir, []Spec{{Name: "gofmt"}, {Name: "go_vet"}, {Name: "go_build"}, {Name: "go_test"}})
	for _, r := range rep.Checks {
		if !r.Passed {
			t.Errorf("%s: %s\n%s", r.Name, r.Error, r.Output)
		}
	}
	want := Isolation{UID: true, Filesystem: true, PID: true, Network: true, Limits: true}
	if iso := rep.Isolation; !iso.UID || !iso.Filesystem || !iso.PID || !iso.Network || !iso.Limits {
		t.Errorf("isolation %+v, want %+v", iso, want)
	}
}

// forkBombModule's test starts processes, never waited for, until the
// check is killed: when the kernel refuses one it tries again. A go
// process counts its threads against the limit while it runs and one
// task once it has exited, so a bomb that stopped at the first refusal
// held as few as a fifth of the limit when the machine was too busy for
// its children to exit in time.
const forkBombModule = `package m

import (
	"os/exec"
	"testing"
	"time"
)

func TestHold(t *testing.T) {
	for {
		c := exec.Command("/verify/go/bin/go", "env", "-h")
		c.Env = []string{"GOROOT=/verify/go"}
		if err := c.Start(); err != nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
}
`

// TestSandboxProcessBudgets runs a check while another check of the same
// server holds every process its limit allows: each check has a uid of
// its own, so the second builds and runs its tests as if alone.
func TestSandboxProcessBudgets(t *testing.T) {
	const first, procs = 65610, 200
	c := sandboxChecker(t, Options{Timeout: 5 * time.Minute, MaxProcs: procs, UID: first, UIDCount: 2})
	bomb := writeModuleFiles(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "m_test.go": forkBombModule})
	ctx, cancel := context.WithCancel(t.Context())
	bombed := make(chan Report, 1)
	go func() { bombed <- c.Run(ctx, bomb, []Spec{{Name: "go_test"}}) }()
	for tasksOf(first, first+1) < procs-20 {
		select {
		case rep := <-bombed:
			t.Fatalf("the fork bomb's check ended before it held its processes: %s\n%s", rep.Checks[0].Error, rep.Checks[0].Output)
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer func() {
		cancel()
		<-bombed
	}()
	dir := writeModuleFiles(t, map[string]string{
		"go.mod":    "module m\n\ngo 1.22\n",
		"m_test.go": "package m\n\nimport (\n\t\"sync\"\n\t\"testing\"\n)\n\nfunc TestThreads(t *testing.T) {\n\tvar wg sync.WaitGroup\n\tfor range 50 {\n\t\twg.Go(func() {})\n\t}\n\twg.Wait()\n}\n",
	})
	rep := c.Run(t.Context(), dir, []Spec{{Name: "go_test"}})
	if r := rep.Checks[0]; !r.Passed {
		t.Errorf("a check beside a fork bomb: %s\n%s", r.Error, r.Output)
	}
}

// tasksOf counts the threads of every process whose real uid is in
// [lo, hi]: what RLIMIT_NPROC counts.
func tasksOf(lo, hi int) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var uid, threads int
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) >= 2 {
				switch f[0] {
				case "Uid:":
					uid, _ = strconv.Atoi(f[1])
				case "Threads:":
					threads, _ = strconv.Atoi(f[1])
				}
			}
		}
		if uid >= lo && uid <= hi {
			n += threads
		}
	}
	return n
}
