//go:build !unix

package workspace

import "errors"

// mapFD is not available here: every object is read through go-git.
func mapFD(uintptr, int) ([]byte, func() error, error) {
	return nil, nil, errors.New("memory-mapped packs are not supported on this system")
}
