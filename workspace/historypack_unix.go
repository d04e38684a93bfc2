//go:build unix

package workspace

import "golang.org/x/sys/unix"

// mapFD maps size bytes of an open file read-only and shared: pages come
// from the page cache git's own reads fill, and the mapping stays valid
// after the file is closed or unlinked.
func mapFD(fd uintptr, size int) ([]byte, func() error, error) {
	b, err := unix.Mmap(int(fd), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return unix.Munmap(b) }, nil
}
