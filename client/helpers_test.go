package client_test

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/testbin"
)

// bins are the servers the tests run, built once per test run.
var bins = testbin.New()

func TestMain(m *testing.M) { os.Exit(bins.Run(m)) }

// build compiles a main package once per test run.
func build(t testing.TB, pkg string) string { return bins.Build(t, pkg) }

func misbehave(t testing.TB, mode string) client.Command {
	return client.Command{
		Path: build(t, "github.com/repo-mcp/repo-mcp/internal/misbehave"),
		Args: []string{"-mode", mode},
	}
}

// leakCheck records the goroutine count and returns a function that checks
// that the server (pid, when known) and every other child was reaped and the
// goroutines are back to the baseline.
func leakCheck(t *testing.T) func(pid int) {
	t.Helper()
	base := runtime.NumGoroutine()
	return func(pid int) {
		t.Helper()
		checkReaped(t, pid)
		// Goroutines end asynchronously after Close returns (timers, the
		// runtime's own); poll rather than time.
		var n int
		for range 200 {
			if n = runtime.NumGoroutine(); n <= base {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d after close, %d before\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

// heapInuse returns the heap in use after a full collection.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func asCallError(t *testing.T, err error) *client.CallError {
	t.Helper()
	var ce *client.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *client.CallError", err, err)
	}
	return ce
}

func toolNames(tools []client.Tool) string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, " ")
}
