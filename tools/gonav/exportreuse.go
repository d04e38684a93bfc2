package gonav

import (
	"path/filepath"
	"sync"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// lastExport remembers the files of the most recent export of each
// workspace, so that the next export, often of a close revision, links
// the files it shares with it (workspace.ExportOptions.Reuse) instead of
// writing them all again: an export of go-git writes a thousand files,
// a good share of a second revision's load. Exports are never changed
// once made; one pruned meanwhile is written again.
type lastExport struct {
	mu   sync.Mutex
	byWS map[string]exportFiles
}

// exportFiles are an export's tree directory and its files by path.
type exportFiles struct {
	dir   string
	files map[string]workspace.ExportedFile
}

// options returns the export options of a new export of workspace ws,
// and a function to call with its tree's directory once it is in place,
// which returns the export's files by path.
func (le *lastExport) options(ws string, base workspace.ExportOptions) (workspace.ExportOptions, func(dir string) map[string]workspace.ExportedFile) {
	le.mu.Lock()
	last := le.byWS[ws]
	le.mu.Unlock()
	made := map[string]workspace.ExportedFile{}
	base.Reuse = func(f workspace.ExportedFile) string {
		if last.files[f.Path] != f {
			return ""
		}
		return filepath.Join(last.dir, filepath.FromSlash(f.Path))
	}
	base.Exported = func(f workspace.ExportedFile) { made[f.Path] = f }
	return base, func(dir string) map[string]workspace.ExportedFile {
		le.mu.Lock()
		defer le.mu.Unlock()
		if le.byWS == nil {
			le.byWS = map[string]exportFiles{}
		}
		le.byWS[ws] = exportFiles{dir: dir, files: made}
		return made
	}
}
