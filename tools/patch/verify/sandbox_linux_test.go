package verify

import (
	"os"
	"path/filepath"
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
	if c.sb.err != nil {
		t.Skipf("no sandbox here: %v", c.sb.err)
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
