package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// CheckModules refuses go.mod files whose replace directives name a
// directory outside the tree root. (go.work files are ignored: the checks
// run with GOWORK=off.)
func CheckModules(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return errors.New("the export cannot be read")
		}
		if d.IsDir() || d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return errors.New("the export cannot be read")
		}
		rel, _ := filepath.Rel(root, p)
		f, err := modfile.Parse(rel, data, nil)
		if err != nil {
			return fmt.Errorf("%s does not parse: %v", filepath.ToSlash(rel), err)
		}
		for _, r := range f.Replace {
			if !modfile.IsDirectoryPath(r.New.Path) {
				continue // a module path: GOPROXY=off keeps it to the module cache
			}
			if filepath.IsAbs(r.New.Path) || strings.HasPrefix(r.New.Path, "/") {
				return fmt.Errorf("%s replaces %s with the absolute path %q, outside the export", filepath.ToSlash(rel), r.Old.Path, r.New.Path)
			}
			target := filepath.Join(filepath.Dir(p), filepath.FromSlash(r.New.Path))
			if inside, _ := filepath.Rel(root, target); inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
				return fmt.Errorf("%s replaces %s with %q, outside the export", filepath.ToSlash(rel), r.Old.Path, r.New.Path)
			}
		}
		return nil
	})
}
