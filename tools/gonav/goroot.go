package gonav

import (
	"context"
	"path/filepath"

	"golang.org/x/mod/modfile"

	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// layout is how a revision's Go code is laid out. Most repositories hold
// modules, whose standard library is the server's Go's. A Go
// distribution's tree is its own standard library: listed as an ordinary
// module, its module std would import the server's standard library and
// be refused its internal packages, so it is listed with GOROOT set to
// the export.
type layout int

const (
	modules layout = iota
	// goRootTree is the golang/go repository: src/go.mod declares module
	// std, and the root is GOROOT. Results name src/fmt/print.go.
	goRootTree
	// goRootSrc is a distribution's src directory committed alone: the
	// root's go.mod declares module std. Its export is put in a src
	// directory so that the directory above is GOROOT; results name
	// fmt/print.go, as the repository does.
	goRootSrc
)

// stdModule is the module path the standard library's go.mod declares.
const stdModule = "std"

// maxGoModBytes bounds the go.mod read to tell a layout.
const maxGoModBytes = 64 << 10

// layoutOf tells a revision's layout from its go.mod files. A go.mod that
// cannot be read (absent, hidden by policy) declares nothing. A VERSION
// file is not required: the golang/go repository has none between
// releases.
func layoutOf(ctx context.Context, snap *workspace.Snapshot) layout {
	declaresStd := func(p string) bool {
		f, err := snap.ReadFile(ctx, p, workspace.ReadOptions{Limit: maxGoModBytes})
		return err == nil && !f.Truncated && modfile.ModulePath(f.Data) == stdModule
	}
	switch {
	case declaresStd("go.mod"):
		return goRootSrc
	case declaresStd("src/go.mod"):
		return goRootTree
	}
	return modules
}

// treeDir is where the revision's tree is exported within dir.
func (lay layout) treeDir(dir string) string {
	if lay == goRootSrc {
		return filepath.Join(dir, "src")
	}
	return dir
}

// srcDir is the directory of the standard library's packages in an
// export dir, or of the repository's modules.
func (lay layout) srcDir(dir string) string {
	if lay == modules {
		return dir
	}
	return filepath.Join(dir, "src")
}

// roots are the directories results name files by. A distribution has no
// other GOROOT: a file under the server's would be a mistake, and shows
// as one (not found under any root).
func (lay layout) roots(dir string, c *verify.Checker) roots {
	if lay == modules {
		return roots{export: dir, goRoot: c.GoRoot(), modCache: c.ModCache()}
	}
	return roots{export: lay.treeDir(dir), modCache: c.ModCache()}
}

// listing is what go list is asked on an export dir: the packages of
// the repository's modules, or the standard library's with GOROOT set to
// the export (./src/... from the root: the std module's packages, not
// cmd's, which is a module of its own).
func (lay layout) listing() (pattern string, opts []verify.RunOption) {
	if lay == modules {
		return "./...", nil
	}
	return "./src/...", []verify.RunOption{verify.WithGoRootExport()}
}
