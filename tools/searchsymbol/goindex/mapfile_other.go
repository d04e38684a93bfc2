//go:build !unix

package goindex

import (
	"io"
	"os"
	"unsafe"
)

// mapFile reads the first size bytes of f into memory aligned to 8 bytes,
// where the system cannot map files.
func mapFile(f *os.File, size int) ([]byte, error) {
	words := make([]uint64, (size+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}

// unmapFile releases what mapFile returned: the garbage collector does.
func unmapFile([]byte) {}
