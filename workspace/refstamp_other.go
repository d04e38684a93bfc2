//go:build !linux && !darwin

package workspace

import "errors"

// Elsewhere the cache is off: without an inode and a change time, a stamp
// cannot tell a ref file rewritten in place from an untouched one.
const (
	canStamp    = false
	typeMask    = 0
	typeSymlink = 0
	typeRegular = 0
)

func lstatStamp(string) (fileStamp, error) {
	return fileStamp{}, errors.New("file stamps are not supported on this platform")
}
