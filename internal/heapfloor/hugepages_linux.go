package heapfloor

import "syscall"

// adviseHuge asks for huge pages for b. The advice is a hint: an error
// (a kernel without transparent huge pages) leaves b in small pages.
func adviseHuge(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
