package patch

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// overlay is the state of the files a proposal touches, on top of its
// base commit: edits and diffs are applied to it in order, and its
// difference from the base becomes the proposal's tree.
type overlay struct {
	snap   *workspace.Snapshot // the base, for the propose action
	limits Options
	files  map[string]*ofile
}

type ofile struct {
	baseExists bool
	baseMode   uint32
	baseSHA    string
	exists     bool
	mode       uint32
	data       []byte
}

func newOverlay(snap *workspace.Snapshot, limits Options) *overlay {
	return &overlay{snap: snap, limits: limits, files: map[string]*ofile{}}
}

// get returns the current state of path p, loading it from the base on
// first use. p is normalized and authorized; symlinks, submodules and
// directories are refused.
func (o *overlay) get(ctx context.Context, p string) (string, *ofile, error) {
	if strings.HasSuffix(p, "/") {
		// Cleaning would drop the slash and change the file before it, or
		// create a file where the caller meant a directory.
		return "", nil, server.Errorf(server.InvalidInput, "path %q ends in '/', which names a directory; a patch changes files", p)
	}
	clean, err := o.snap.Authorize(p, false)
	if err != nil {
		return "", nil, err
	}
	if clean == "" {
		return "", nil, server.Errorf(server.InvalidInput, "a path must name a file, not the repository root")
	}
	if f, ok := o.files[clean]; ok {
		return clean, f, nil
	}
	f := &ofile{}
	e, err := o.snap.Stat(ctx, clean)
	switch {
	case server.ClassOf(err) == server.NotFound:
		if err := o.checkAncestors(ctx, clean); err != nil {
			return "", nil, err
		}
	case err != nil:
		return "", nil, err
	case e.Type != workspace.TypeFile:
		return "", nil, server.Errorf(server.InvalidInput, "path %q is a %s at the base; only regular files can be changed", clean, e.Type)
	default:
		if e.Size > o.limits.MaxFileBytes {
			return "", nil, server.Errorf(server.InvalidInput, "path %q is %d bytes, more than the %d a patch may change", clean, e.Size, o.limits.MaxFileBytes)
		}
		rf, err := o.snap.ReadFile(ctx, clean, workspace.ReadOptions{Limit: o.limits.MaxFileBytes})
		if err != nil {
			return "", nil, err
		}
		f.baseExists, f.baseMode, f.baseSHA = true, rf.Mode, rf.SHA
		f.exists, f.mode, f.data = true, rf.Mode, rf.Data
	}
	o.files[clean] = f
	return clean, f, nil
}

// checkAncestors refuses a new path below something that is not a
// directory at the base (a file, a symlink, a submodule).
func (o *overlay) checkAncestors(ctx context.Context, p string) error {
	for i := range len(p) {
		if p[i] != '/' {
			continue
		}
		e, err := o.snap.Stat(ctx, p[:i])
		if server.ClassOf(err) == server.NotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if e.Type != workspace.TypeDir {
			return server.Errorf(server.InvalidInput, "path %q: %q is a %s at the base, not a directory", p, p[:i], e.Type)
		}
	}
	return nil
}

// changes returns the files that differ from the base, sorted by path, with
// their new blobs stored, and checks the proposal's limits.
func (o *overlay) changes() ([]workspace.Change, error) {
	paths := make([]string, 0, len(o.files))
	for p := range o.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []workspace.Change
	var data [][]byte
	var total int64
	for _, p := range paths {
		f := o.files[p]
		switch {
		case !f.exists && !f.baseExists:
			continue
		case !f.exists:
			out = append(out, workspace.Change{Path: p, Delete: true})
			data = append(data, nil)
			continue
		}
		if bytes.IndexByte(f.data, 0) >= 0 {
			return nil, server.Errorf(server.InvalidInput, "path %q: the new content is binary (it holds NUL bytes); binary changes are refused", p)
		}
		sha := blobSHA(f.data)
		if f.baseExists && sha == f.baseSHA && f.mode == f.baseMode {
			continue
		}
		total += int64(len(f.data))
		out = append(out, workspace.Change{Path: p, Mode: f.mode, SHA: sha})
		data = append(data, f.data)
	}
	switch {
	case len(out) == 0:
		return nil, server.Errorf(server.InvalidInput, "the patch changes nothing: every file equals its base")
	case len(out) > o.limits.MaxFiles:
		return nil, server.Errorf(server.InvalidInput, "the patch changes %d files, more than the %d allowed", len(out), o.limits.MaxFiles)
	case total > o.limits.MaxBytes:
		return nil, server.Errorf(server.InvalidInput, "the patch writes %d bytes, more than the %d allowed", total, o.limits.MaxBytes)
	}
	ws := o.snap.Workspace()
	for i, c := range out {
		if c.Delete {
			continue
		}
		if _, err := ws.WriteBlob(data[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// blobSHA is the git object id of a blob with this content.
func blobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
