package workspace

import (
	"fmt"
	"os"

	"github.com/go-git/go-git/v5"
)

// OpenGit opens a second, independent handle on the workspace's repository,
// with the same protections as the workspace's own (alternates are not
// followed; the git directory is bounded), for a tool that reads many
// objects at its own pace, such as the symbol indexer, without holding the
// workspace's lock. The caller must resolve and authorize revisions through
// a Snapshot first, and Close the handle when done. cacheBytes sizes its
// object cache.
func (w *Workspace) OpenGit(cacheBytes int64) (*git.Repository, func() error, error) {
	layout, err := findGitDir(w.root)
	if err != nil {
		return nil, nil, w.scrub(err)
	}
	r, err := openRepo(layout, cacheBytes, 0)
	if err != nil {
		return nil, nil, w.scrub(err)
	}
	repo, err := git.Open(r.storage, nil)
	if err != nil {
		r.close()
		return nil, nil, w.scrub(fmt.Errorf("opening repository: %w", err))
	}
	return repo, r.close, nil
}

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
