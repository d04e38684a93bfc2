//go:build unix

package goindex

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. The mapping is page
// aligned. Cache files are replaced by renames, never written in place,
// so the mapped bytes do not change under the reader.
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile releases what mapFile returned.
func unmapFile(b []byte) { syscall.Munmap(b) }
