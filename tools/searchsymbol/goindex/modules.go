package goindex

import (
	"path"
	"strconv"
	"strings"
)

// modulePath returns the module path declared by the contents of a go.mod
// file, or "" when there is none.
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(rest); err == nil {
			return unq
		}
		return rest
	}
	return ""
}

// moduleMap maps the directories that hold a go.mod file to their module
// paths, and from those computes the import path of any directory.
type moduleMap map[string]string // dir ("" for the root) -> module path

// importPath returns the import path of the package in dir:
//   - below a vendor directory, the path after it;
//   - below a module root, the module path joined with the rest of dir
//     (the standard library's module "std" has no prefix);
//   - elsewhere (GOPATH-style trees), dir itself.
func (m moduleMap) importPath(dir string) string {
	if i := strings.LastIndex("/"+dir, "/vendor/"); i >= 0 {
		return dir[i+len("vendor/"):]
	}
	for d := dir; ; d = parentDir(d) {
		if mod, ok := m[d]; ok && mod != "" {
			rel := strings.TrimPrefix(strings.TrimPrefix(dir, d), "/")
			switch {
			case mod == "std":
				if rel == "" {
					return "std"
				}
				return rel
			case rel == "":
				return mod
			default:
				return mod + "/" + rel
			}
		}
		if d == "" {
			break
		}
	}
	if dir == "" {
		return "."
	}
	return dir
}

func parentDir(dir string) string {
	if dir == "" {
		return ""
	}
	d := path.Dir(dir)
	if d == "." {
		return ""
	}
	return d
}

// skippedDir reports whether the go command would ignore a directory with
// this name when matching packages (testdata, vendor, and names beginning
// with "." or "_"), and which option brings it back.
func skippedDir(name string, opts Options) bool {
	switch {
	case name == "vendor":
		return !opts.IncludeVendor
	case name == "testdata", strings.HasPrefix(name, "."), strings.HasPrefix(name, "_"):
		return !opts.IncludeTestdata
	}
	return false
}
