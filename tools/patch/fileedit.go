package patch

import (
	"context"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// applyFileEdit applies one file of a diff or an envelope to the overlay:
// a creation, a deletion, a change, a rename, or a rename with a change.
// Paths go through overlay.get, so they are normalized and checked against
// policy, and only regular files of at most MaxFileBytes are read.
func (o *overlay) applyFileEdit(ctx context.Context, fe *fileEdit, n *notes) error {
	from, to := fe.from, fe.to
	if fe.loose {
		from, to = o.resolveLoose(ctx, fe, n)
	}
	var src, dst *ofile
	var srcPath, dstPath string
	var err error
	if from != "" {
		if srcPath, src, err = o.get(ctx, from); err != nil {
			return err
		}
		if !src.exists {
			return server.Errorf(server.InvalidInput, "%q does not exist at the base", from)
		}
	}
	if to != "" {
		if dstPath, dst, err = o.get(ctx, to); err != nil {
			return err
		}
		if dstPath != srcPath && dst.exists {
			return server.Errorf(server.InvalidInput, "%q already exists at the base", to)
		}
	}
	var old []byte
	mode := workspace.ModeFile
	if src != nil {
		old, mode = src.data, src.mode
	}
	if fe.newMode != 0 {
		mode = fe.newMode
	}
	if fe.delete {
		src.exists, src.data = false, nil
		return nil
	}
	fh := &fileHunks{path: dstPath, base: splitLines(old), notes: n}
	if fh.path == "" {
		fh.path = srcPath
	}
	data, err := fh.apply(fe.hunks)
	if err != nil {
		return err
	}
	if dst == nil { // a deletion
		if len(data) != 0 {
			return server.Errorf(server.InvalidInput, "the deletion of %q does not remove all of its lines", from)
		}
		src.exists, src.data = false, nil
		return nil
	}
	if src != nil && dstPath != srcPath {
		src.exists, src.data = false, nil
	}
	dst.exists, dst.data, dst.mode = true, data, mode
	return nil
}

// resolveLoose reads the names of a file diff written without git's a/ and
// b/ prefixes. Each is taken as written, except a name with a stray a/ or
// b/ whose file does not exist at the base while the name without it does
// (or, for the new name, is the old one).
func (o *overlay) resolveLoose(ctx context.Context, fe *fileEdit, n *notes) (string, string) {
	from, to := fe.from, fe.to
	if from != "" && !o.exists(ctx, from) {
		for _, p := range []string{"a/", "b/"} {
			if rest, ok := strings.CutPrefix(from, p); ok && o.exists(ctx, rest) {
				from = rest
			}
		}
	}
	if rest, ok := strings.CutPrefix(to, "b/"); ok && rest == from {
		to = rest
	}
	path := to
	if path == "" {
		path = from
	}
	n.add(path, 0, fixPrefix, "the names %q and %q lack git's a/ and b/ prefixes; read as: %s", orNull(fe.from), orNull(fe.to), describeNames(from, to))
	return from, to
}

func orNull(p string) string {
	if p == "" {
		return "/dev/null"
	}
	return p
}

// describeNames says what a file diff does with its names.
func describeNames(from, to string) string {
	switch {
	case from == "":
		return "new file " + to
	case to == "":
		return "deletion of " + from
	case from == to:
		return from
	}
	return from + " renamed to " + to
}

// exists says whether p names a file or directory at the base.
func (o *overlay) exists(ctx context.Context, p string) bool {
	clean, err := workspace.CleanPath(p)
	if err != nil || clean == "" {
		return false
	}
	if f, ok := o.files[clean]; ok {
		return f.exists
	}
	_, err = o.snap.Stat(ctx, clean)
	return err == nil
}
