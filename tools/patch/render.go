package patch

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// A fileChange is one file of a proposal with both contents at hand: what
// the canonical diff is rendered from.
type fileChange struct {
	OldPath, NewPath string // "" when the file does not exist on that side
	OldMode, NewMode uint32
	OldSHA, NewSHA   string
	Old, New         []byte
}

// Status of a file in a proposal.
const (
	statusAdded    = "added"
	statusModified = "modified"
	statusDeleted  = "deleted"
	statusRenamed  = "renamed"
)

func (c *fileChange) status() string {
	switch {
	case c.OldPath == "":
		return statusAdded
	case c.NewPath == "":
		return statusDeleted
	case c.OldPath != c.NewPath:
		return statusRenamed
	}
	return statusModified
}

// path is the path the file has after the patch (before it, for a
// deletion).
func (c *fileChange) path() string {
	if c.NewPath != "" {
		return c.NewPath
	}
	return c.OldPath
}

// canonicalContext is the number of context lines of the diff whose
// digest binds an approval.
const canonicalContext = 3

// renderDiff renders changes as a git-style unified diff with ctx lines of
// context, and counts each file's added and deleted lines.
func renderDiff(changes []*fileChange, ctx int) (string, []FileStat, error) {
	files := make([]workspace.FileDiff, len(changes))
	for i, c := range changes {
		files[i] = workspace.FileDiff{
			OldPath: c.OldPath, NewPath: c.NewPath, OldMode: c.OldMode, NewMode: c.NewMode,
			OldSHA: c.OldSHA, NewSHA: c.NewSHA, Old: c.Old, New: c.New,
		}
	}
	text, counts, err := workspace.UnifiedDiff(files, ctx)
	if err != nil {
		return "", nil, err
	}
	stats := make([]FileStat, len(changes))
	for i, c := range changes {
		stats[i] = FileStat{Path: c.path(), Status: c.status(), Additions: counts[i].Added, Deletions: counts[i].Deleted}
		if stats[i].Status == statusRenamed {
			stats[i].OldPath = c.OldPath
		}
	}
	return text, stats, nil
}

// digest is the hex SHA-256 of a diff's text.
func digest(diffText string) string {
	sum := sha256.Sum256([]byte(diffText))
	return hex.EncodeToString(sum[:])
}
