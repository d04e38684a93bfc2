package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// lockHidingFS hides git's lock files (name.lock) in refs/ from go-git.
//
// A writer, git or this package, creates refs/heads/x.lock, writes the new
// id into it and renames it over refs/heads/x. go-git lists refs by
// reading every file below refs/, lock files included: a lock just
// created is empty and failed the whole listing ("ref file is empty"),
// and one written read as a ref named x.lock. git skips them, as no ref
// name may end in .lock; so does this filesystem's ReadDir.
type lockHidingFS struct {
	billy.Filesystem
}

func (fs lockHidingFS) ReadDir(dir string) ([]os.FileInfo, error) {
	infos, err := fs.Filesystem.ReadDir(dir)
	if err != nil || !underRefs(dir) {
		return infos, err
	}
	return slices.DeleteFunc(infos, func(fi os.FileInfo) bool {
		return !fi.IsDir() && strings.HasSuffix(fi.Name(), ".lock")
	}), nil
}

// underRefs reports whether dir, as go-git names it, is refs/ or below.
func underRefs(dir string) bool {
	dir = filepath.ToSlash(filepath.Clean(dir))
	return dir == "refs" || strings.HasPrefix(dir, "refs/")
}
