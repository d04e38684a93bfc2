package gonav

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// outsideStats are the sizes and modification times of a listed
// package's files outside the repository (GOROOT's, the module cache's),
// which its key hashes in their contents' place (see loader.prepare).
// They are read once per listing and shared by every load that reuses
// it: a listing reused for a later revision (see listCache) already
// takes those trees to be unchanged, since it names their files, and a
// new run of go list makes new stats. Reading them again was 4% of a
// second revision's CPU, on one thread before the checks start.
type outsideStats struct {
	once  sync.Once
	files []fileStat // by index in GoFiles
}

// fileStat is what os.Stat said of one file.
type fileStat struct {
	size    int64
	modTime time.Time
	err     error
}

// stat returns the stats of the package's i-th Go file, reading them all
// the first time.
func (s *outsideStats) stat(lp *listedPackage, i int) fileStat {
	s.once.Do(func() {
		s.files = make([]fileStat, len(lp.GoFiles))
		for j, f := range lp.GoFiles {
			s.files[j] = statPath(filepath.Join(lp.Dir, f))
		}
	})
	return s.files[i]
}

// set gives the stats of the package's Go files, read by whoever checked
// that a listing kept on disk still holds (see listStore), before any
// stat call.
func (s *outsideStats) set(files []fileStat) {
	s.once.Do(func() { s.files = files })
}

// statPath returns what os.Stat says of a path.
func statPath(path string) fileStat {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStat{err: err}
	}
	return fileStat{size: fi.Size(), modTime: fi.ModTime()}
}
