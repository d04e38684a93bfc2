package workspace

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// commonDirFS gives go-git the object store of a linked worktree's common
// directory under the names it opens it by.
//
// go-git reopens a pack by the name its first descriptor was opened with
// to stream an object over the large-object threshold; that name is an
// absolute path in the common directory, which go-git's repository
// filesystem resolves in the worktree's own git directory, where no pack
// is: every large blob of a linked worktree read as missing. An absolute
// name inside the common directory is made relative to it again.
type commonDirFS struct {
	billy.Filesystem
	commonDir string
}

func (fs commonDirFS) rel(name string) string {
	if !filepath.IsAbs(name) {
		return name
	}
	rel, err := filepath.Rel(fs.commonDir, name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return name
	}
	return rel
}

func (fs commonDirFS) Open(name string) (billy.File, error) {
	return fs.Filesystem.Open(fs.rel(name))
}

func (fs commonDirFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	return fs.Filesystem.OpenFile(fs.rel(name), flag, perm)
}

func (fs commonDirFS) Stat(name string) (os.FileInfo, error) {
	return fs.Filesystem.Stat(fs.rel(name))
}
