package toolkit

import (
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to a temporary file in path's directory,
// syncs it and renames it into place: a reader, in this process or
// another sharing the directory, sees the old file or the whole new one,
// never part of it (an index or cache a crash interrupted included).
func WriteFileAtomic(path string, data []byte) error {
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
