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
			fi, err := os.Stat(filepath.Join(lp.Dir, f))
			if err != nil {
				s.files[j] = fileStat{err: err}
				continue
			}
			s.files[j] = fileStat{size: fi.Size(), modTime: fi.ModTime()}
		}
	})
	return s.files[i]
}
