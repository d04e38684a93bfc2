package history

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// HistoryIn is what history takes.
type HistoryIn struct {
	toolkit.Target
	// Mode is "log" (the default: commits, newest first) or "blame" (which commit last changed each line of path).
	Mode string `json:"mode,omitempty" jsonschema:"enum=log,enum=blame"`
	// Path limits a log to commits that changed this file or directory; blame needs a file.
	Path string `json:"path,omitempty" jsonschema:"maxLength=4096"`
	// Follow follows a single file's renames (log with a file path).
	Follow bool `json:"follow,omitempty"`
	// Since keeps commits committed at or after this time: RFC 3339, or a date YYYY-MM-DD (UTC).
	Since string `json:"since,omitempty" jsonschema:"maxLength=64"`
	// Until keeps commits committed at or before this time: RFC 3339, or a date YYYY-MM-DD (UTC, the whole day).
	Until string `json:"until,omitempty" jsonschema:"maxLength=64"`
	// Author keeps commits whose author "Name <email>" contains this text (case-sensitive).
	Author string `json:"author,omitempty" jsonschema:"maxLength=256"`
	// Message keeps commits whose message matches this RE2 regular expression.
	Message string `json:"message,omitempty" jsonschema:"maxLength=1024"`
	// ContentAdded keeps commits that increased the number of occurrences of this exact text in some file (git log -S, additions).
	ContentAdded string `json:"content_added,omitempty" jsonschema:"maxLength=1024"`
	// ContentRemoved keeps commits that decreased it (git log -S, removals). Both set: either.
	ContentRemoved string `json:"content_removed,omitempty" jsonschema:"maxLength=1024"`
	// ContentRegex keeps commits whose diff adds or removes a line matching this RE2 regular expression (git log -G).
	ContentRegex string `json:"content_regex,omitempty" jsonschema:"maxLength=1024"`
	// FirstParent follows only the first parent of merges.
	FirstParent bool `json:"first_parent,omitempty"`
	// Merges is "all" (default), "only" (merge commits only) or "none" (no merge commits).
	Merges string `json:"merges,omitempty" jsonschema:"enum=all,enum=only,enum=none"`
	// Files adds each commit's changed files with line counts (not for merges).
	Files bool `json:"files,omitempty"`
	// BodyBytes bounds each commit's message body. Default 1024; 0 keeps the default; at most 65536.
	BodyBytes int `json:"body_bytes,omitempty" jsonschema:"minimum=0,maximum=65536"`
	// Limit is the most commits one page holds. Default 20; at most 200.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200"`
	// Cursor continues a log: the next_cursor of the previous page, with the same other arguments.
	Cursor string `json:"cursor,omitempty" jsonschema:"maxLength=1024"`
	// StartLine is the first line to blame, 1-based. Default 1.
	StartLine int `json:"start_line,omitempty" jsonschema:"minimum=1,maximum=2147483647"`
	// EndLine is the last line to blame, inclusive. Default: the last line.
	EndLine int `json:"end_line,omitempty" jsonschema:"minimum=1,maximum=2147483647"`
	// IgnoreWhitespace makes blame ignore whitespace changes (git blame -w).
	IgnoreWhitespace bool `json:"ignore_whitespace,omitempty"`
}

// HistoryOut is a page of a log, or a blame.
type HistoryOut struct {
	// Revision is the full SHA of the commit the log starts from, or that is blamed.
	Revision string `json:"revision"`
	// Path is the normalized path, when one was given.
	Path string `json:"path,omitempty"`
	// Commits are the log's commits, newest first; for blame, the commits its hunks name.
	Commits []Commit `json:"commits"`
	// Hunks are blame's runs of lines, each last changed by one commit.
	Hunks []BlameHunk `json:"hunks,omitempty"`
	// Truncated says more commits match, or more lines remain to blame.
	Truncated bool `json:"truncated"`
	// NextCursor continues a truncated log.
	NextCursor string `json:"next_cursor,omitempty"`
	// NextStartLine continues a truncated blame.
	NextStartLine int `json:"next_start_line,omitempty"`
}

const (
	defaultLimit     = 20
	defaultBodyBytes = 1024
	// pageBudget is what a page's commits may take, twice over (text and
	// structured); historyResultBytes bounds the whole result above it.
	pageBudget         = 1 << 20
	historyResultBytes = 3 << 20
	// maxLogFiles bounds the files listed for one commit of a log.
	maxLogFiles = 300
)

// commitSize estimates a commit's share of a result.
func commitSize(c Commit) int {
	n := 400 + len(c.Subject) + len(c.Body)
	for _, f := range c.Files {
		n += 120 + len(f.Path) + len(f.OldPath)
	}
	return n
}

// logArgs are the arguments that decide which commits a log holds.
type logArgs struct {
	Path, Since, Until, Author, Message, Added, Removed, Regex, Merges string
	Follow, FirstParent, Files                                         bool
	BodyBytes                                                          int
}

func historyCall(ctx context.Context, reg *workspace.Registry, opts Options, req *server.Request, in HistoryIn) (HistoryOut, error) {
	snap, err := toolkit.Snapshot(ctx, reg, req, in.Target)
	if err != nil {
		return HistoryOut{}, err
	}
	if in.Mode == "blame" {
		return blame(ctx, snap, opts, in)
	}
	return logPage(ctx, snap, opts, in)
}

func logPage(ctx context.Context, snap *workspace.Snapshot, opts Options, in HistoryIn) (HistoryOut, error) {
	lo, err := logOptions(in, opts)
	if err != nil {
		return HistoryOut{}, err
	}
	args := argsDigest(logArgs{
		Path: lo.Path, Since: in.Since, Until: in.Until, Author: in.Author, Message: in.Message,
		Added: in.ContentAdded, Removed: in.ContentRemoved, Regex: in.ContentRegex, Merges: in.Merges,
		Follow: in.Follow, FirstParent: in.FirstParent, Files: in.Files, BodyBytes: in.BodyBytes,
	})
	start := snap.Revision().SHA
	if in.Cursor != "" {
		c, err := decodeCursor(in.Cursor, "history", args)
		if err != nil {
			return HistoryOut{}, err
		}
		if c.Commits != start {
			return HistoryOut{}, server.Errorf(server.PreconditionFailed,
				"the revision moved since the first page: it was %s and is now %s", c.Commits, start).
				WithHint("pass revision " + c.Commits + " to finish the log from that commit, or start again without cursor")
		}
		lo.Skip = c.Pos
	}
	page, err := snap.History(ctx, lo)
	if err != nil {
		return HistoryOut{}, err
	}
	bodyBytes := in.BodyBytes
	if bodyBytes == 0 {
		bodyBytes = defaultBodyBytes
	}
	out := HistoryOut{Revision: start, Path: lo.Path, Commits: make([]Commit, 0, len(page.Entries)), Truncated: page.More}
	size := 0
	for i, e := range page.Entries {
		c := commitOut(e.CommitInfo, bodyBytes)
		if in.Files && e.Files != nil {
			files := e.Files
			if len(files) > maxLogFiles {
				files, c.FilesOmitted = files[:maxLogFiles], len(files)-maxLogFiles
			}
			c.Files = filesOut(files)
		}
		// Each commit appears twice (structured and text): the page ends
		// before it outgrows its budget, and the cursor resumes there.
		size += 2 * commitSize(c)
		if size > pageBudget && i > 0 {
			out.Truncated = true
			break
		}
		out.Commits = append(out.Commits, c)
	}
	if out.Truncated {
		out.NextCursor = cursor{Tool: "history", Commits: start, Args: args, Pos: lo.Skip + len(out.Commits)}.encode()
	}
	return out, nil
}

// logOptions checks and converts the arguments of a log.
func logOptions(in HistoryIn, opts Options) (workspace.LogOptions, error) {
	if in.StartLine != 0 || in.EndLine != 0 || in.IgnoreWhitespace {
		return workspace.LogOptions{}, server.Errorf(server.InvalidInput, "start_line, end_line and ignore_whitespace are for mode blame")
	}
	lo := workspace.LogOptions{
		Follow: in.Follow, Author: in.Author, FirstParent: in.FirstParent, Files: in.Files,
		ContentAdded: in.ContentAdded, ContentRemoved: in.ContentRemoved, HideEmails: opts.HideEmails,
		Limit: in.Limit,
	}
	if lo.Limit == 0 {
		lo.Limit = defaultLimit
	}
	if in.Path != "" {
		p, err := workspace.CleanPath(in.Path)
		if err != nil {
			return lo, err
		}
		lo.Path = p
	}
	if in.Merges != "all" {
		lo.Merges = in.Merges
	}
	var err error
	if lo.Since, err = parseTime("since", in.Since, false); err != nil {
		return lo, err
	}
	if lo.Until, err = parseTime("until", in.Until, true); err != nil {
		return lo, err
	}
	if lo.Message, err = compile("message", in.Message); err != nil {
		return lo, err
	}
	if lo.ContentRegex, err = compile("content_regex", in.ContentRegex); err != nil {
		return lo, err
	}
	return lo, nil
}

// parseTime reads RFC 3339 or a date; a date as an upper bound means the
// end of that day.
func parseTime(name, s string, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, server.Errorf(server.InvalidInput, "%s %q is neither RFC 3339 (2024-05-01T12:00:00Z) nor a date (2024-05-01)", name, s)
	}
	if end {
		t = t.Add(24*time.Hour - time.Second)
	}
	return t, nil
}

func compile(name, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, server.Errorf(server.InvalidInput, "%s is not an RE2 regular expression: %v", name, err)
	}
	return re, nil
}

// Text renders the page as git log --stat would, commit messages fenced as
// repository data.
func (o HistoryOut) Text() string {
	if o.Hunks != nil {
		return o.blameText()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s from %s", toolkit.Count(len(o.Commits), "commit", "commits"), o.Revision)
	if o.Path != "" {
		fmt.Fprintf(&b, " touching %s", o.Path)
	}
	b.WriteString(":\n")
	for _, c := range o.Commits {
		fmt.Fprintf(&b, "\ncommit %s", c.SHA)
		if len(c.Parents) > 1 {
			fmt.Fprintf(&b, " (merge of %s)", strings.Join(c.Parents, " "))
		}
		fmt.Fprintf(&b, "\nAuthor: %s\nDate:   %s\n", personText(c.Author), c.Author.Time)
		for _, f := range c.Files {
			fmt.Fprintf(&b, "  %s\n", fileText(f))
		}
		if c.FilesOmitted > 0 {
			fmt.Fprintf(&b, "  [%d more files: ask diff with commit %s]\n", c.FilesOmitted, c.SHA)
		}
	}
	if len(o.Commits) > 0 {
		b.WriteString("\n")
		b.WriteString(toolkit.Fence("Messages, by commit:", messages(o.Commits)))
	}
	if o.Truncated {
		b.WriteString("\n[more commits: continue with cursor " + o.NextCursor + "]")
	}
	return b.String()
}

func messages(cs []Commit) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s\n", c.SHA[:12], c.Subject)
		if c.Body != "" {
			b.WriteString(c.Body)
			if !strings.HasSuffix(c.Body, "\n") {
				b.WriteString("\n")
			}
			if c.BodyTruncated {
				b.WriteString("[body cut at body_bytes]\n")
			}
		}
	}
	return b.String()
}

func personText(p Person) string {
	if p.Email == "" {
		return p.Name
	}
	return p.Name + " <" + p.Email + ">"
}

func fileText(f File) string {
	var b strings.Builder
	b.WriteString(f.Status)
	b.WriteString(" ")
	if f.OldPath != "" {
		fmt.Fprintf(&b, "%s => %s (%d%%)", f.OldPath, f.Path, f.Similarity)
	} else {
		b.WriteString(f.Path)
	}
	switch {
	case f.Binary:
		b.WriteString(" binary")
	case f.Added != nil:
		fmt.Fprintf(&b, " +%d -%d", *f.Added, *f.Removed)
	}
	if f.OldMode != "" {
		fmt.Fprintf(&b, " mode %s => %s", f.OldMode, f.NewMode)
	}
	return b.String()
}

func fenceSubjects(cs []Commit) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s\n", c.SHA[:12], c.Subject)
	}
	return toolkit.Fence("Subjects, by commit:", b.String())
}
