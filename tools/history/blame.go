package history

import (
	"context"
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// BlameHunk is a run of lines last changed by one commit.
type BlameHunk struct {
	// StartLine and EndLine are the lines of the blamed file, 1-based and inclusive.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// SHA is the commit that last changed these lines; commits holds its author, time and subject.
	SHA string `json:"sha"`
	// OrigPath is the file's path in that commit, when it differs from path (a rename since).
	OrigPath string `json:"orig_path,omitempty"`
	// OrigStartLine is the first line's number in that commit's version of the file.
	OrigStartLine int `json:"orig_start_line"`
	// PreviousSHA and PreviousPath name the parent commit and path to blame next to dig further; absent when the commit added the file.
	PreviousSHA  string `json:"previous_sha,omitempty"`
	PreviousPath string `json:"previous_path,omitempty"`
}

// maxHunks bounds a blame result; a longer blame is cut at a hunk
// boundary and continues with next_start_line.
const maxHunks = 1000

func blame(ctx context.Context, snap *workspace.Snapshot, opts Options, in HistoryIn) (HistoryOut, error) {
	switch {
	case in.Path == "":
		return HistoryOut{}, server.Errorf(server.InvalidInput, "blame needs path: the file to blame")
	case in.Cursor != "" || in.Follow || in.Since != "" || in.Until != "" || in.Author != "" || in.Message != "" ||
		in.ContentAdded != "" || in.ContentRemoved != "" || in.ContentRegex != "" || in.FirstParent || in.Merges != "" || in.Files:
		return HistoryOut{}, server.Errorf(server.InvalidInput, "blame takes path, start_line, end_line and ignore_whitespace; the other filters are for mode log").
			WithHint("continue a long blame with start_line = next_start_line")
	case in.EndLine != 0 && in.EndLine < max(in.StartLine, 1):
		return HistoryOut{}, server.Errorf(server.InvalidInput, "end_line %d is before start_line %d", in.EndLine, max(in.StartLine, 1))
	}
	b, err := snap.Blame(ctx, in.Path, workspace.BlameOptions{
		StartLine: in.StartLine, EndLine: in.EndLine, IgnoreWhitespace: in.IgnoreWhitespace,
	}, opts.HideEmails)
	if err != nil {
		return HistoryOut{}, err
	}
	out := HistoryOut{Revision: snap.Revision().SHA, Path: b.Path, Commits: []Commit{}, Hunks: []BlameHunk{}}
	hunks := b.Hunks
	if len(hunks) > maxHunks {
		hunks = hunks[:maxHunks]
		out.Truncated, out.NextStartLine = true, hunks[len(hunks)-1].EndLine+1
	}
	seen := make(map[string]bool)
	for _, h := range hunks {
		bh := BlameHunk{
			StartLine: h.StartLine, EndLine: h.EndLine, SHA: h.SHA, OrigStartLine: h.OrigStartLine,
			PreviousSHA: h.PreviousSHA, PreviousPath: h.PreviousPath,
		}
		if h.OrigPath != b.Path {
			bh.OrigPath = h.OrigPath
		}
		out.Hunks = append(out.Hunks, bh)
		if !seen[h.SHA] {
			seen[h.SHA] = true
			c := commitOut(b.Commits[h.SHA], 0)
			c.Body, c.BodyTruncated = "", false
			out.Commits = append(out.Commits, c)
		}
	}
	return out, nil
}

// blameText renders a blame as one line per hunk; the subjects, which are
// repository data, are fenced.
func (o HistoryOut) blameText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "blame of %s at %s: %s\n", o.Path, o.Revision, toolkit.Count(len(o.Hunks), "hunk", "hunks"))
	byID := make(map[string]Commit, len(o.Commits))
	for _, c := range o.Commits {
		byID[c.SHA] = c
	}
	for _, h := range o.Hunks {
		c := byID[h.SHA]
		fmt.Fprintf(&b, "lines %d-%d: %s %s %s", h.StartLine, h.EndLine, h.SHA[:12], c.Author.Name, c.Author.Time)
		if h.OrigPath != "" {
			fmt.Fprintf(&b, " (was %s:%d)", h.OrigPath, h.OrigStartLine)
		}
		b.WriteString("\n")
	}
	if len(o.Commits) > 0 {
		b.WriteString(fenceSubjects(o.Commits))
	}
	if o.Truncated {
		fmt.Fprintf(&b, "\n[more lines: continue with start_line %d]", o.NextStartLine)
	}
	return b.String()
}
