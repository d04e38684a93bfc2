// Package atomicfile writes files that readers see whole or not at all:
// the indexes and caches that several processes, or replicas sharing a
// directory, read while another writes them.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file in path's directory, syncs it
// and renames it into place: a reader, in this process or another sharing
// the directory, sees the old file or the whole new one, never part of it,
// even after a crash. The directory must exist.
func WriteFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
