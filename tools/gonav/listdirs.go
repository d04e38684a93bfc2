package gonav

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// listDirectories stands in for go list when it cannot run: each
// directory's Go files are a package (its external test package apart),
// named by the root go.mod's module path, with no imports resolved. The
// packages are then checked on their own, which finds their own
// declarations and uses but nothing imported.
func listDirectories(root string) ([]*listedPackage, error) {
	module := ""
	if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		module = modfile.ModulePath(data)
	}
	if module == stdModule {
		module = "" // the standard library's import paths have no prefix
	}
	byID := map[string]*listedPackage{}
	var order []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || !d.Type().IsRegular() {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly)
		if err != nil || f.Name == nil {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		id := path.Join(module, filepath.ToSlash(rel))
		if strings.HasSuffix(f.Name.Name, "_test") && strings.HasSuffix(name, "_test.go") {
			id += "_test"
		}
		lp := byID[id]
		if lp == nil {
			lp = &listedPackage{ImportPath: id, Name: f.Name.Name, Dir: filepath.Dir(p)}
			byID[id] = lp
			order = append(order, id)
		}
		lp.GoFiles = append(lp.GoFiles, name)
		return nil
	})
	var out []*listedPackage
	for _, id := range order {
		out = append(out, byID[id])
	}
	return out, err
}
