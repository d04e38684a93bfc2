// Package testbin builds the commands that tests run as subprocesses (the
// real binaries, not in-process stand-ins), each at most once per test
// binary, into one temporary folder removed at the end:
//
//	var bins = testbin.New()
//
//	func TestMain(m *testing.M) { os.Exit(bins.Run(m)) }
//
//	func TestX(t *testing.T) {
//		server := bins.Build(t, "github.com/repo-mcp/repo-mcp/cmd/repo-mcp")
//		...
//	}
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Set is the binaries of one test binary.
type Set struct {
	mu    sync.Mutex
	dir   string
	built map[string]*build
}

type build struct {
	once sync.Once
	path string
	err  error
}

// New returns an empty set; call Run from TestMain.
func New() *Set { return &Set{built: make(map[string]*build)} }

// Run runs the tests and removes the binaries afterwards. It returns the
// exit code for os.Exit.
func (s *Set) Run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "testbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		return 1
	}
	s.mu.Lock()
	s.dir = dir
	s.mu.Unlock()
	defer os.RemoveAll(dir)
	return m.Run()
}

// Build compiles the main package pkg (an import path, or "." for the
// package under test when it is a command) once, and returns the path of
// the binary. A build failure fails the test.
func (s *Set) Build(t testing.TB, pkg string) string {
	t.Helper()
	s.mu.Lock()
	if s.dir == "" {
		s.mu.Unlock()
		t.Fatal("testbin: Build called outside Set.Run (call it from TestMain)")
	}
	b, ok := s.built[pkg]
	if !ok {
		b = &build{path: filepath.Join(s.dir, fmt.Sprintf("%d-%s", len(s.built), filepath.Base(pkg)))}
		s.built[pkg] = b
	}
	s.mu.Unlock()
	b.once.Do(func() {
		// Static, as README and deploy/Containerfile build it: a
		// dynamically linked binary starts measurably slower.
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}
