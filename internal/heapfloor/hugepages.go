package heapfloor

import "runtime"

// HugePages grows the heap by size bytes at once, asks the kernel to back
// that part with huge pages where it can (Linux with transparent huge
// pages in "madvise" mode; elsewhere it only grows the heap), and frees it
// again, so that the allocator, which takes the lowest free addresses
// first, places the next spans there. It runs a collection to free it,
// and is meant to run once, early, on a goroutine of its own.
//
// Below the floor nothing is collected, so every span a new process
// allocates is fresh memory, and each of its pages faults once when first
// touched. On the virtual machines CI runs on, a fault costs about 20 µs:
// a new server's first full listing of the Go tree faulted 4100 times, half
// of its CPU time, and 16 MiB touched in huge pages costs about 1 ms
// instead of 85. The cost is a resident heap in 2 MiB steps.
func HugePages(size int) {
	b := make([]byte, size)
	adviseHuge(b)
	runtime.KeepAlive(b) // b is garbage from here: the collection frees it
	runtime.GC()
}
