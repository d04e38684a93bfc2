package heapfloor

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// faultsChild names, in a child process's environment, what it measures:
// "huge" fills fresh heap after HugePages, "small" without it.
const faultsChild = "HEAPFLOOR_TEST_FAULTS"

// TestHugePagesFaultLess: a new process that called HugePages faults a
// small fraction as often, filling fresh heap, as one that did not. Each
// runs in a child of its own, so that its heap is as fresh as a new
// server's.
func TestHugePagesFaultLess(t *testing.T) {
	if mode := os.Getenv(faultsChild); mode != "" {
		fmt.Printf("faults %d\n", fillFresh(t, mode == "huge"))
		return
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		// "always" gives both processes huge pages, "never" neither.
		t.Skipf("transparent huge pages are not in madvise mode (%q), where alone HugePages changes anything", strings.TrimSpace(string(mode)))
	}
	huge, small := childFaults(t, "huge"), childFaults(t, "small")
	t.Logf("filling %d MiB of fresh heap: %d faults after HugePages, %d without", fillBytes>>20, huge, small)
	if huge*4 > small {
		t.Errorf("%d faults after HugePages, %d without: want under a quarter", huge, small)
	}
}

const fillBytes = 16 << 20

// fillFresh allocates fillBytes in small objects, touching each, with the
// collector off so that all of it is fresh memory, and returns how many
// page faults that took.
func fillFresh(t *testing.T, huge bool) int64 {
	debug.SetGCPercent(-1)
	if huge {
		HugePages(2 * fillBytes)
	}
	before := minorFaults(t)
	keep := make([][]byte, 0, fillBytes/1024)
	for range cap(keep) {
		b := make([]byte, 1024)
		b[0] = 1
		keep = append(keep, b)
	}
	return minorFaults(t) - before
}

func childFaults(t *testing.T, mode string) int64 {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugePagesFaultLess$")
	cmd.Env = append(os.Environ(), faultsChild+"="+mode)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", mode, err, out)
	}
	_, rest, ok := strings.Cut(string(out), "faults ")
	n, err := strconv.ParseInt(strings.Fields(rest + " x")[0], 10, 64)
	if !ok || err != nil {
		t.Fatalf("child %s printed %q", mode, out)
	}
	return n
}

func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}
