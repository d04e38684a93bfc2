package searchtext

import (
	"context"
	"errors"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// overlay gives the working tree's files that are as HEAD has them the
// blob ids HEAD has, so that the index and the content cache serve them
// and only the files that differ from HEAD (or are not in it) are read
// from disk. Which files differ is what git status says: the index's stat
// data, and a hash of the file where those changed. It returns the
// snapshot of HEAD the blobs are read through, or wt itself when there is
// no HEAD to overlay (no commit yet, or one the caller may not read):
// every file is then read from disk.
func (sv *Service) overlay(ctx context.Context, wt *workspace.Snapshot, in SearchTextIn, filter *pathFilter, files []fileRef) (*workspace.Snapshot, error) {
	h, err := wt.Head()
	if err != nil || h.SHA == "" {
		return wt, err
	}
	head, err := wt.At(ctx, h.SHA)
	var ce *errclass.Error
	if errors.As(err, &ce) && ce.Class == errclass.PermissionDenied {
		return wt, nil
	}
	if err != nil {
		return nil, err
	}
	changed, err := wt.DiffFrom(ctx, head, workspace.DiffOptions{NoRenames: true})
	if err != nil {
		return nil, err
	}
	differs := make(map[string]bool, len(changed))
	for _, c := range changed {
		differs[c.Path] = true
	}
	headList, err := sv.listings.list(ctx, head, in, filter, sv.opts.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	byPath := make(map[string]fileRef, len(headList.files))
	for _, f := range headList.files {
		byPath[f.path] = f
	}
	for i, f := range files {
		if hf, ok := byPath[f.path]; ok && !differs[f.path] {
			files[i].sha, files[i].blob = hf.sha, hf.blob
		}
	}
	return head, nil
}
