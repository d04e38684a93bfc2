//go:build unix

package gonav

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// linkedFiles counts the files under dir that have another link.
func linkedFiles(t *testing.T, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil && fi.Sys().(*syscall.Stat_t).Nlink > 1 {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
