package pathcheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

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

func (e *Error) Error() string { return fmt.Sprintf("path %s refused: %s", quote(e.Path), e.Reason) }

// quote quotes a path for a message (Go escapes, so no control or bidi
// character is left raw), cut to a length that keeps messages small.
func quote(s string) string {
	const max = 96
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
}

// Check returns p as a clean slash-separated path relative to root ("." for
// the root itself), or an *Error. p may be relative to root or absolute
// inside it.
//
// A relative path must pass the rules repo-mcp applies to its own callers
// (internal/pathrule, behind workspace.CleanPath), and three more that
// matter because the path goes to a server the harness does not control:
// no ".." at all (a server may resolve it before or after a symbolic
// link), no leading "~" (a server may expand it to a home directory), and
// no hidden component unless Options.AllowHidden.
func Check(root, p string, opts Options) (string, error) {
	return NewRoot(root, opts).Check(p)
}

// Root checks paths in one workspace. It resolves the root's symbolic
// links once, at its first check that gets that far, rather than on
// every check, which the harness makes on every call of a model's. A
// root re-pointed later makes every path whose links are resolved there
// refused (it no longer leads under the root first resolved), never one
// accepted. A Root is safe for concurrent use.
type Root struct {
	dir  string
	opts Options

	mu   sync.Mutex
	real string // dir with its symbolic links resolved, once that succeeded
}

// NewRoot returns the checker of paths in the workspace dir.
func NewRoot(dir string, opts Options) *Root { return &Root{dir: dir, opts: opts} }

// realDir is the root with its symbolic links resolved.
func (r *Root) realDir() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.real == "" {
		real, err := filepath.EvalSymlinks(r.dir)
		if err != nil {
			return "", fmt.Errorf("workspace root: %w", err)
		}
		r.real = real
	}
	return r.real, nil
}

// Check is the package's Check in the root.
func (r *Root) Check(p string) (string, error) {
	root, opts := r.dir, r.opts
	refuse := func(reason string) (string, error) { return "", &Error{Path: p, Reason: reason} }
	if p == "" {
		return refuse("empty")
	}
	rel := p
	if strings.HasPrefix(p, "/") {
		// Servers such as server-filesystem name files absolutely: such a
		// path is accepted when it names root itself or starts with it,
		// and the rest then meets every rule of a relative path.
		root := filepath.ToSlash(filepath.Clean(root))
		switch {
		case p == root || p == root+"/":
			rel = "."
		case strings.HasPrefix(p, root+"/"):
			rel = p[len(root)+1:]
		default:
			return refuse("absolute, and outside the workspace")
		}
	}
	clean, err := pathrule.Clean(rel)
	if err != nil {
		return refuse(cleanPathReason(rel, err))
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." {
			return refuse(`".." component`)
		}
	}
	if strings.HasPrefix(rel, "~") {
		return refuse(`starts with "~", which a server may take for a home directory`)
	}
	if clean == "" {
		clean = "."
	}
	if err := checkComponents(clean, opts); err != nil {
		return refuse(err.Error())
	}
	if err := r.staysInside(clean); err != nil {
		return refuse(err.Error())
	}
	return clean, nil
}

// cleanPathReason is the reason the path grammar gave, without the path
// it quotes again.
func cleanPathReason(p string, err error) string {
	var se *errclass.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	reason, ok := strings.CutPrefix(se.Message, "path "+strconv.Quote(p)+" ")
	if !ok && len(se.Message) > 200 {
		return se.Message[:200] + "..."
	}
	return reason
}

// checkComponents refuses hidden components of a clean path unless opts
// allow them. CleanPath already refused every spelling of ".git".
func checkComponents(clean string, opts Options) error {
	for _, part := range strings.Split(clean, "/") {
		switch {
		case pathrule.IsGitDirName(part):
			return errors.New(".git is never readable")
		case strings.HasPrefix(part, ".") && part != "." && !opts.AllowHidden:
			return errors.New("hidden file or directory")
		}
	}
	return nil
}

// staysInside resolves the symbolic links of the longest existing prefix
// of rel and checks that it is still under root, and that what it resolves
// to meets the component rules too: a committed link "meta" -> ".git"
// makes "meta/config" name the repository's configuration.
func (r *Root) staysInside(rel string) error {
	realRoot, err := r.realDir()
	if err != nil {
		return err
	}
	p := filepath.Join(r.dir, rel)
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
	inside, err := filepath.Rel(realRoot, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, "../") {
		return errors.New("a symbolic link leads outside the workspace")
	}
	if err := checkComponents(filepath.ToSlash(inside), r.opts); err != nil {
		return fmt.Errorf("a symbolic link leads to a path that is refused: %w", err)
	}
	return nil
}
