package gonav

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Display prefixes of files outside the repository: results name them
// this way, never by a host path.
const (
	goRootPrefix   = "$GOROOT/"
	modCachePrefix = "$GOMODCACHE/"
)

// roots are the host directories a program's files come from, and how
// each is shown: the export as repository paths, GOROOT and the module
// cache with a prefix.
type roots struct {
	export, goRoot, modCache string
}

// display returns how a host file is named in results, or false for a
// file under none of the roots.
func (r roots) display(host string) (string, bool) {
	for _, m := range []struct{ dir, prefix string }{{r.export, ""}, {r.goRoot, goRootPrefix}, {r.modCache, modCachePrefix}} {
		if m.dir == "" {
			continue
		}
		if rel, err := filepath.Rel(m.dir, host); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return m.prefix + filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// host returns the host file a display name stands for.
func (r roots) host(display string) string {
	switch {
	case strings.HasPrefix(display, goRootPrefix):
		return filepath.Join(r.goRoot, filepath.FromSlash(strings.TrimPrefix(display, goRootPrefix)))
	case strings.HasPrefix(display, modCachePrefix):
		return filepath.Join(r.modCache, filepath.FromSlash(strings.TrimPrefix(display, modCachePrefix)))
	}
	return filepath.Join(r.export, filepath.FromSlash(display))
}

// readFile reads a file a result names. A name that leaves its root
// can only come from a damaged or foreign entry of the type store (our
// own names are made by display): it is refused, not read.
func (r roots) readFile(display string) ([]byte, error) {
	rel := strings.TrimPrefix(strings.TrimPrefix(display, goRootPrefix), modCachePrefix)
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Errorf("%q is not a file under the program's roots", display)
	}
	return os.ReadFile(r.host(display))
}

// inRepo reports whether a display name is a file of the repository.
func inRepo(display string) bool {
	return !strings.HasPrefix(display, goRootPrefix) && !strings.HasPrefix(display, modCachePrefix)
}
