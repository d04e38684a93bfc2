package workspace

import "github.com/repo-mcp/repo-mcp/internal/pathrule"

// Limits on a path a caller may name.
const (
	MaxPathBytes      = pathrule.MaxBytes
	MaxPathComponents = pathrule.MaxComponents
)

// CleanPath normalizes a caller-supplied path before any I/O. It returns
// the path relative to the workspace root, slash-separated, without
// leading or trailing slashes; the root itself is "". It refuses, with an
// invalid_input [errclass.Error], absolute forms, backslashes, control
// characters, invalid UTF-8, percent-encoded separators, ".." that would
// leave the root, any component that names .git in any spelling, and paths
// over [MaxPathBytes] bytes or [MaxPathComponents] components. The rules
// live in internal/pathrule, which the harness applies too.
//
// A nil error guarantees that the result is a local path (no "..", no
// leading slash) with no component that names the repository's metadata.
func CleanPath(p string) (string, error) { return pathrule.Clean(p) }

// IsGitDirName reports whether a single path component would name the
// repository's metadata directory on some filesystem: ".git" in any case
// or in a form some filesystem folds to it.
func IsGitDirName(comp string) bool { return pathrule.IsGitDirName(comp) }

// validEntryName reports whether a name read from a tree or a directory can
// be shown to a caller as one path component.
func validEntryName(name string) bool { return pathrule.ValidEntryName(name) }

// hasControl reports whether s holds a C0 or C1 control character or DEL.
func hasControl(s string) bool { return pathrule.HasControl(s) }

// quoteInput quotes a caller-supplied string for an error message, cut to
// a length that keeps messages small.
func quoteInput(s string) string { return pathrule.Quote(s) }
