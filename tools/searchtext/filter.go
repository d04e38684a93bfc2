package searchtext

import (
	"path"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// languageExtensions maps a language shortcut to the file name endings it
// stands for.
var languageExtensions = map[string][]string{
	"go":    {".go"},
	"md":    {".md", ".markdown"},
	"yaml":  {".yaml", ".yml"},
	"json":  {".json"},
	"toml":  {".toml"},
	"proto": {".proto"},
	"sh":    {".sh", ".bash"},
	"py":    {".py"},
	"js":    {".js", ".mjs", ".cjs", ".jsx"},
	"ts":    {".ts", ".tsx", ".mts", ".cts"},
	"c":     {".c", ".h"},
	"cpp":   {".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".h"},
	"java":  {".java"},
	"rust":  {".rs"},
	"html":  {".html", ".htm"},
	"css":   {".css"},
	"sql":   {".sql"},
	"txt":   {".txt"},
}

// pathFilter keeps the paths the include, exclude and language arguments
// select. Globs follow the project's rules: ** spans directories, and a
// pattern without a slash matches base names.
type pathFilter struct {
	include, exclude []workspace.Glob
	baseInclude      []workspace.Glob // slash-free patterns, matched against base names
	baseExclude      []workspace.Glob
	extensions       []string
}

func newPathFilter(in SearchTextIn) (*pathFilter, error) {
	f := &pathFilter{}
	for _, l := range in.Languages {
		exts, ok := languageExtensions[l]
		if !ok {
			return nil, server.Errorf(server.InvalidInput, "unknown language %q", l)
		}
		f.extensions = append(f.extensions, exts...)
	}
	var err error
	if f.include, f.baseInclude, err = parseGlobs("include", in.Include); err != nil {
		return nil, err
	}
	if f.exclude, f.baseExclude, err = parseGlobs("exclude", in.Exclude); err != nil {
		return nil, err
	}
	return f, nil
}

func parseGlobs(what string, patterns []string) (full, base []workspace.Glob, err error) {
	for _, p := range patterns {
		g, err := workspace.ParseGlob(p)
		if err != nil {
			return nil, nil, server.Errorf(server.InvalidInput, "%s: %v", what, err)
		}
		if strings.Contains(strings.Trim(p, "/"), "/") {
			full = append(full, g)
		} else {
			base = append(base, g)
		}
	}
	return full, base, nil
}

// keep reports whether the clean path p is selected.
func (f *pathFilter) keep(p string) bool {
	base := path.Base(p)
	if len(f.include)+len(f.baseInclude) > 0 && !matchAny(f.include, p) && !matchAny(f.baseInclude, base) {
		return false
	}
	if matchAny(f.exclude, p) || matchAny(f.baseExclude, base) {
		return false
	}
	if len(f.extensions) == 0 {
		return true
	}
	for _, ext := range f.extensions {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}

func matchAny(globs []workspace.Glob, s string) bool {
	for _, g := range globs {
		if g.Match(s) {
			return true
		}
	}
	return false
}
