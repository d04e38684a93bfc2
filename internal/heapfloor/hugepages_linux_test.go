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
	"unsafe"
)

// hugeChild names, in a child process's environment, what it measures:
// "huge" fills fresh heap after HugePages, "small" without it.
const hugeChild = "HEAPFLOOR_TEST_HUGE"

// TestHugePagesBackTheHeap: in a new process that called HugePages, fresh
// heap lands in huge pages; in one that did not, it does not. Each runs in
// a child of its own, so that its heap is as fresh as a new server's. The
// kernel's count of the process's anonymous huge pages is read rather than
// its page faults, which the race detector's shadow memory would swamp.
func TestHugePagesBackTheHeap(t *testing.T) {
	if mode := os.Getenv(hugeChild); mode != "" {
		fmt.Printf("huge %d\n", fillFresh(t, mode == "huge"))
		return
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		// "always" gives both processes huge pages, "never" neither.
		t.Skipf("transparent huge pages are not in madvise mode (%q), where alone HugePages changes anything", strings.TrimSpace(string(mode)))
	}
	huge, small := childHuge(t, "huge"), childHuge(t, "small")
	t.Logf("filling %d MiB of fresh heap: %d KiB in huge pages after HugePages, %d without", fillBytes>>20, huge>>10, small>>10)
	if huge < fillBytes/2 || small > huge/4 {
		t.Errorf("filling %d MiB put %d KiB in huge pages after HugePages, %d without: want at least half of it with, a quarter of that without",
			fillBytes>>20, huge>>10, small>>10)
	}
}

const fillBytes = 16 << 20

// fillFresh allocates fillBytes in small objects, touching each, with the
// collector off so that all of it is fresh memory, and returns how many
// more bytes of the process are in anonymous huge pages.
func fillFresh(t *testing.T, huge bool) int64 {
	debug.SetGCPercent(-1)
	if huge {
		HugePages(2 * fillBytes)
	}
	before := anonHuge(t)
	keep := make([][]byte, 0, fillBytes/1024)
	for range cap(keep) {
		b := make([]byte, 1024)
		b[0] = 1
		keep = append(keep, b)
	}
	return anonHuge(t) - before
}

// anonHuge is the process's AnonHugePages, in bytes.
func anonHuge(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skipf("no /proc/self/smaps_rollup: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "AnonHugePages:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("smaps_rollup: %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("smaps_rollup has no AnonHugePages:\n%s", data)
	return 0
}

func childHuge(t *testing.T, mode string) int64 {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugePagesBackTheHeap$")
	cmd.Env = append(os.Environ(), hugeChild+"="+mode)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", mode, err, out)
	}
	_, rest, ok := strings.Cut(string(out), "huge ")
	n, err := strconv.ParseInt(strings.Fields(rest + " x")[0], 10, 64)
	if !ok || err != nil {
		t.Fatalf("child %s printed %q", mode, out)
	}
	return n
}

// BenchmarkFreshPages: what touching memory the process never touched costs,
// per 4 KiB page of a fresh 4 MiB anonymous mapping: touched one page at a
// time ("small", what a new process's heap does), populated by one
// MADV_POPULATE_WRITE first ("populate"), or advised MADV_HUGEPAGE first
// ("huge", which HugePages arranges for the heap), in ns/page.
func BenchmarkFreshPages(b *testing.B) {
	const size, page, huge = 4 << 20, 4 << 10, 2 << 20
	const madvPopulateWrite = 23 // Linux 5.14
	for _, v := range []struct {
		name   string
		advise int
	}{{"small", syscall.MADV_NOHUGEPAGE}, {"populate", madvPopulateWrite}, {"huge", syscall.MADV_HUGEPAGE}} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				m, err := syscall.Mmap(-1, 0, size+huge, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				// Aligned to a huge page, so that each 2 MiB can be one.
				start := (huge - int(uintptr(unsafe.Pointer(&m[0])))%huge) % huge
				region := m[start : start+size]
				if v.advise != madvPopulateWrite {
					if err := syscall.Madvise(region, v.advise); err != nil {
						b.Skipf("madvise: %v", err)
					}
				}
				b.StartTimer()
				if v.advise == madvPopulateWrite {
					if err := syscall.Madvise(region, v.advise); err != nil {
						b.Skipf("madvise(MADV_POPULATE_WRITE): %v", err)
					}
				}
				for i := 0; i < size; i += page {
					region[i] = 1
				}
				b.StopTimer()
				if err := syscall.Munmap(m); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size/page), "ns/page")
			b.ReportMetric(0, "ns/op")
		})
	}
}
