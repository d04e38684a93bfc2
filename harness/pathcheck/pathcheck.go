package pathcheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/pathrule"
)

// Options relax the check.
type Options struct {
	AllowHidden bool // allow components starting with "." (never ".git")
}

// Error says why a path was refused.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("path %q refused: %s", e.Path, e.Reason) }

// Check returns p as a clean slash-separated path relative to root ("." for
// the root itself), or an *Error. p may be relative to root or absolute
// inside it.
func Check(root, p string, opts Options) (string, error) {
	refuse := func(reason string) (string, error) { return "", &Error{Path: p, Reason: reason} }
	if p == "" {
		return refuse("empty")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return refuse("control character")
		}
	}
	if strings.Contains(p, `\`) {
		return refuse("backslash")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return refuse(`".." component`)
		}
	}
	rel := p
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return refuse("outside the workspace")
		}
		rel = r
	}
	rel = filepath.ToSlash(filepath.Clean(rel))
	// The workspace layer's grammar too (internal/pathrule), so that no
	// path this check lets through is one repo-mcp would refuse: drive
	// letters and URLs, percent-encoded traversal, .git lookalikes, bytes
	// that are not path text, oversized paths.
	if _, err := pathrule.Clean(rel); err != nil {
		reason := err.Error()
		if e, ok := errors.AsType[*errclass.Error](err); ok {
			reason = e.Message
		}
		return refuse(reason)
	}
	for _, part := range strings.Split(rel, "/") {
		switch {
		case part == ".":
		case strings.EqualFold(part, ".git"):
			return refuse(".git is never readable")
		case strings.HasPrefix(part, ".") && !opts.AllowHidden:
			return refuse("hidden file or directory")
		}
	}
	if err := staysInside(root, rel); err != nil {
		return refuse(err.Error())
	}
	return rel, nil
}

// staysInside resolves the symbolic links of the longest existing prefix
// of rel and checks that it is still under root.
func staysInside(root, rel string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("workspace root: %w", err)
	}
	p := filepath.Join(root, rel)
	for {
		if _, err := os.Lstat(p); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	if r, err := filepath.Rel(realRoot, real); err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return errors.New("a symbolic link leads outside the workspace")
	}
	return nil
}
