//go:build linux || darwin

package workspace

import (
	"errors"
	"syscall"
)

const (
	canStamp    = true
	typeMask    = syscall.S_IFMT
	typeSymlink = syscall.S_IFLNK
	typeRegular = syscall.S_IFREG
)

// lstatStamp stamps a file without opening it. A path that does not exist,
// or whose parent is not a directory, stamps as absent: go-git finds no
// loose ref there either.
func lstatStamp(path string) (fileStamp, error) {
	var st syscall.Stat_t
	err := syscall.Lstat(path, &st)
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{
		exists: true,
		mode:   uint32(st.Mode),
		dev:    uint64(st.Dev),
		ino:    uint64(st.Ino),
		size:   int64(st.Size),
		mtime:  statMtime(&st),
		ctime:  statCtime(&st),
	}, nil
}
