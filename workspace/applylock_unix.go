//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// lockApply takes the working tree's apply lock: an flock on a file in the
// git directory, so that it holds across processes and is released by the
// kernel if the process dies.
func (w *Workspace) lockApply() (func(), error) {
	f, err := os.OpenFile(filepath.Join(w.layout.gitDir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, w.internalError("opening the apply lock", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errclass.Errorf(errclass.PreconditionFailed,
				"another apply to the working tree of workspace %q is in progress", w.id)
		}
		return nil, w.internalError("taking the apply lock", err)
	}
	return func() { f.Close() }, nil
}
