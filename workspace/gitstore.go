package workspace

import (
	"fmt"
	"os"
)

// OpenWorktree returns the working tree as an os.Root, for a tool that
// walks it at its own pace; it fails unless the workspace allows reading
// the working tree. The caller must resolve and authorize the "worktree"
// revision through a Snapshot first, and Close the root when done.
func (w *Workspace) OpenWorktree() (*os.Root, error) {
	if !w.worktree || w.rootFS == nil {
		return nil, fmt.Errorf("workspace %q does not allow reading the working tree", w.id)
	}
	return w.rootFS.OpenRoot(".")
}
