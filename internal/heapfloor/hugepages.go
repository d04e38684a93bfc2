package heapfloor

import "runtime"

// HugePages grows the heap by size bytes at once, asks the kernel to back
// that part with huge pages where it can (Linux with transparent huge
// pages in "madvise" mode; elsewhere it only grows the heap), and frees it
// again with a collection, so that the allocator, which takes the lowest
// free addresses first, places the next spans there.
//
// Below the floor nothing is collected, so every span a new process
// allocates is fresh memory, and each of its pages faults once when first
// touched. On the virtual machines CI runs on, a fault costs about 20 µs
// (a 4 KiB page touched one by one 19 µs, after MADV_POPULATE_WRITE 11 µs,
// and in a huge page 0.3 µs: zeroing 2 MiB costs about what eight faults
// do), so a process that is about to allocate several MiB at once gains
// by calling this first. The collection costs a new process about 8 ms of
// CPU, which is why serve does not call it at start (a cold start to its
// first answer allocates too little to pay it back) but before its first
// walk of a whole tree (see workspace.Options.BeforeBulk). The cost is a
// resident heap in 2 MiB steps.
//
// size should leave the heap under the collector's goal (half the floor,
// with a new process's few MiB): a collection started by the allocation
// itself would find the block live, and then a second one is needed.
func HugePages(size int) {
	b := make([]byte, size)
	adviseHuge(b)
	runtime.KeepAlive(b) // b is garbage from here: the collection frees it
	runtime.GC()
}
