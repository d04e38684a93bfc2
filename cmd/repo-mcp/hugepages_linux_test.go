package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
)

// TestFirstListingAdvisesHugePages: serve asks for huge pages for its heap
// (heapfloor.HugePages, advised MADV_HUGEPAGE) on its first walk of a
// whole tree, and not before. The kernel flags advised memory "hg" in
// /proc/PID/smaps whether or not it has touched it yet, so even the small
// fixture shows it. The runtime advises a little of its own metadata, so
// the test compares the advised memory before and after the listing.
func TestFirstListingAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("the kernel has no transparent huge pages to advise")
	}
	dir, _ := fixtureRepo(t)
	c, err := client.Start(context.Background(), client.Command{
		Path: repoMCP(t), Args: []string{"serve", "--workspace", "go=" + dir, "--audit-log", os.DevNull},
	}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := readFile(c, "README.md"); err != nil {
		t.Fatal(err)
	}
	before := advisedHuge(t, c.PID())
	if err := listAll(c, false); err != nil {
		t.Fatal(err)
	}
	after := advisedHuge(t, c.PID())
	t.Logf("memory advised MADV_HUGEPAGE: %d KiB after a read, %d KiB after a full listing", before>>10, after>>10)
	if after-before < 16<<20 {
		t.Errorf("the first full listing advised %d KiB more for huge pages; want the 16 MiB HugePages grows the heap by", (after-before)>>10)
	}
}

// advisedHuge sums the sizes of process pid's mappings flagged "hg"
// (MADV_HUGEPAGE) in /proc/PID/smaps.
func advisedHuge(t *testing.T, pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	var total, size int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "Size:":
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				t.Fatalf("smaps: %q: %v", sc.Text(), err)
			}
			size = kb << 10
		case len(fields) > 0 && fields[0] == "VmFlags:" && slices.Contains(fields[1:], "hg"):
			total += size
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}
