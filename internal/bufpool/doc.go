// Package bufpool keeps a few large byte buffers for reuse, so that a
// stream of large messages (a file read in pages of a megabyte) is not a
// stream of new buffers. A new buffer of a megabyte costs more than its
// bytes: the runtime clears it, and its pages, given back to the system
// since the last one was collected, fault in again one by one (about 20 µs
// a page on a virtual machine), and the garbage collector runs sooner.
//
//	p := bufpool.New(2, 16<<20) // at most 2 free buffers, of at most 16 MiB
//	b := p.Get(n)               // len 0, cap >= n
//	...                         // b is the caller's until it gives it back
//	p.Put(b)                    // no slice of b may be used after this
//
// A pool is for buffers whose last user is known: whoever calls Put
// promises that nothing refers to the buffer any more. A buffer that is
// never given back is simply collected. The pool is bounded in the number
// and the size of the buffers it keeps, and is safe for concurrent use.
// The package imports nothing of the project.
package bufpool
