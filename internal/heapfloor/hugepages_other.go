//go:build !linux

package heapfloor

// adviseHuge does nothing where the system has no madvise(MADV_HUGEPAGE).
func adviseHuge([]byte) {}
