package history

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// DiffIn is what diff takes: a commit to show, or a base and a head.
type DiffIn struct {
	// WorkspaceID is the id of a workspace the operator configured.
	WorkspaceID string `json:"workspace_id" jsonschema:"minLength=1,maxLength=64,pattern=^[a-z0-9][a-z0-9._-]*$"`
	// Commit shows one commit: its metadata and full message, and its changes against its first parent (a merge is compared with its first parent; a root commit with the empty tree). Not with base or head.
	Commit string `json:"commit,omitempty" jsonschema:"maxLength=256"`
	// Base is the revision to compare from (a SHA, branch, tag, HEAD~N...).
	Base string `json:"base,omitempty" jsonschema:"maxLength=256"`
	// Head is the revision to compare to. Default HEAD.
	Head string `json:"head,omitempty" jsonschema:"maxLength=256"`
	// MergeBase compares from the merge base of base and head instead of base (git diff base...head: what head did since it left base).
	MergeBase bool `json:"merge_base,omitempty"`
	// Path limits the diff to a file or directory.
	Path string `json:"path,omitempty" jsonschema:"maxLength=4096"`
	// Detail is "stats" (default: files with line counts) or "patch" (files with unified diffs, 3 lines of context).
	// A hunk header names the enclosing function as git does: by the built-in driver that the path's diff attribute
	// (.gitattributes at HEAD) names for golang, python, rust, java, cpp and markdown, else by git's default rule
	// (also for git's other built-in drivers and for drivers defined in git config, where git's names may differ).
	Detail string `json:"detail,omitempty" jsonschema:"enum=stats,enum=patch"`
	// NoRenames reports renamed files as a deletion and an addition.
	NoRenames bool `json:"no_renames,omitempty"`
	// MaxBytes bounds the patch text of one page. Default 256 KiB; at most 1 MiB.
	MaxBytes int `json:"max_bytes,omitempty" jsonschema:"minimum=1024,maximum=1048576"`
	// Limit is the most files one page lists. Default 500; at most 5000.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=5000"`
	// Cursor continues a diff: the next_cursor of the previous page, with the same other arguments.
	Cursor string `json:"cursor,omitempty" jsonschema:"maxLength=1024"`
}

// DiffOut is a page of the files that differ.
type DiffOut struct {
	// Base is the full SHA compared from; absent for a root commit (the empty tree).
	Base string `json:"base,omitempty"`
	// Head is the full SHA compared to.
	Head string `json:"head"`
	// Commit is the shown commit, its message whole up to 64 KiB (commit only).
	Commit *Commit `json:"commit,omitempty"`
	// Files are this page's changed files, in path order.
	Files []File `json:"files"`
	// TotalFiles, TotalAdded and TotalRemoved count the whole diff, every page.
	TotalFiles   int `json:"total_files"`
	TotalAdded   int `json:"total_added"`
	TotalRemoved int `json:"total_removed"`
	// Truncated says more files (or more of the last file's patch) follow.
	Truncated bool `json:"truncated"`
	// NextCursor continues a truncated diff.
	NextCursor string `json:"next_cursor,omitempty"`

	patch string
}

const (
	defaultFiles      = 500
	defaultPatchBytes = 256 << 10
	messageBytes      = 64 << 10
	diffResultBytes   = 1<<20 + 2<<20 // a full patch budget beside 5000 files' entries
)

// diffArgs are the arguments that decide what a diff holds.
type diffArgs struct {
	Path, Detail string
	NoRenames    bool
}

func diffCall(ctx context.Context, reg *workspace.Registry, opts Options, req *server.Request, in DiffIn) (DiffOut, error) {
	base, head, commit, err := diffSnapshots(ctx, reg, req, in)
	if err != nil {
		return DiffOut{}, err
	}
	out := DiffOut{Head: head.Revision().SHA, Files: []File{}}
	if base != nil {
		out.Base = base.Revision().SHA
	}
	if commit {
		info, err := head.CommitInfo(opts.HideEmails)
		if err != nil {
			return DiffOut{}, err
		}
		c := commitOut(info, messageBytes)
		out.Commit = &c
	}
	args := argsDigest(diffArgs{Path: in.Path, Detail: in.Detail, NoRenames: in.NoRenames})
	var pos cursor
	if in.Cursor != "" {
		if pos, err = decodeCursor(in.Cursor, "diff", args); err != nil {
			return DiffOut{}, err
		}
		if pos.Commits != out.Base+".."+out.Head {
			return DiffOut{}, server.Errorf(server.PreconditionFailed,
				"the revisions moved since the first page: the diff was %s and is now %s..%s", pos.Commits, out.Base, out.Head).
				WithHint("pass the full SHAs of that diff as base and head, or start again without cursor")
		}
	}
	files, err := head.DiffFrom(ctx, base, workspace.DiffOptions{Path: in.Path, NoRenames: in.NoRenames, Counts: true})
	if err != nil {
		return DiffOut{}, err
	}
	out.TotalFiles = len(files)
	for _, f := range files {
		out.TotalAdded += max(f.Added, 0)
		out.TotalRemoved += max(f.Removed, 0)
	}
	if pos.Pos > len(files) {
		return DiffOut{}, server.Errorf(server.InvalidInput, "cursor is past the end of the diff")
	}
	var next cursor
	if in.Detail == "patch" {
		next, err = patchPage(ctx, head, files, in, pos, &out)
	} else {
		next = statsPage(files, in, pos, &out)
	}
	if err != nil {
		return DiffOut{}, err
	}
	if out.Truncated {
		next.Tool, next.Commits, next.Args = "diff", out.Base+".."+out.Head, args
		out.NextCursor = next.encode()
	}
	return out, nil
}

// diffSnapshots resolves what a diff compares: base (nil for the empty
// tree) and head, and whether head is a shown commit.
func diffSnapshots(ctx context.Context, reg *workspace.Registry, req *server.Request, in DiffIn) (base, head *workspace.Snapshot, commit bool, err error) {
	acc := toolkit.Access(req)
	if in.Commit != "" {
		if in.Base != "" || in.Head != "" || in.MergeBase {
			return nil, nil, false, server.Errorf(server.InvalidInput, "commit shows one commit; base, head and merge_base are for comparing two revisions")
		}
		if head, err = reg.Snapshot(ctx, acc, in.WorkspaceID, in.Commit); err != nil {
			return nil, nil, false, err
		}
		if head.Revision().SHA == workspace.WorktreeRevision {
			return nil, nil, false, server.Errorf(server.InvalidInput, "commit names a commit; the working tree is not one")
		}
		base, err = head.Parent(1)
		return base, head, true, err
	}
	if in.Base == "" {
		return nil, nil, false, server.Errorf(server.InvalidInput, "name a commit to show, or a base to compare head with")
	}
	if head, err = reg.Snapshot(ctx, acc, in.WorkspaceID, in.Head); err != nil {
		return nil, nil, false, err
	}
	if base, err = reg.Snapshot(ctx, acc, in.WorkspaceID, in.Base); err != nil {
		return nil, nil, false, err
	}
	if base.Revision().SHA == workspace.WorktreeRevision {
		return nil, nil, false, server.Errorf(server.InvalidInput, "base must be a commit; the working tree can only be head")
	}
	if in.MergeBase {
		if base, err = base.MergeBase(ctx, head); err != nil {
			return nil, nil, false, err
		}
	}
	return base, head, false, nil
}

// statsPage lists files from the cursor's, and returns where the next
// page starts.
func statsPage(files []workspace.ChangedFile, in DiffIn, pos cursor, out *DiffOut) cursor {
	limit := in.Limit
	if limit == 0 {
		limit = defaultFiles
	}
	end := min(pos.Pos+limit, len(files))
	out.Files = append(out.Files, filesOut(files[pos.Pos:end])...)
	out.Truncated = end < len(files)
	return cursor{Pos: end}
}

// patchPage renders patches from the cursor's file (and byte offset in
// its patch) until the byte budget or the file limit is reached, and
// returns where the next page starts. A patch larger than the budget is
// cut at a line boundary and continued by the cursor.
func patchPage(ctx context.Context, head *workspace.Snapshot, files []workspace.ChangedFile, in DiffIn, pos cursor, out *DiffOut) (cursor, error) {
	budget := in.MaxBytes
	if budget == 0 {
		budget = defaultPatchBytes
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultFiles
	}
	var b strings.Builder
	i, offset := pos.Pos, pos.Offset
	defer func() { out.patch = b.String() }()
	patcher := head.Patcher()
	for ; i < len(files) && i-pos.Pos < limit; i++ {
		p, err := patcher.Patch(ctx, files[i], 3)
		if err != nil {
			return cursor{}, err
		}
		if offset > len(p) {
			return cursor{}, server.Errorf(server.InvalidInput, "cursor is past the end of a patch")
		}
		rest := p[offset:]
		room := budget - b.Len()
		if len(rest) > room {
			if b.Len() > 0 {
				break // the next page starts with this file
			}
			n := lineCut(rest, room)
			b.Write(rest[:n])
			out.Files = append(out.Files, fileOut(files[i]))
			out.Truncated = true
			return cursor{Pos: i, Offset: offset + n}, nil
		}
		b.Write(rest)
		out.Files = append(out.Files, fileOut(files[i]))
		offset = 0
	}
	out.Truncated = i < len(files)
	return cursor{Pos: i}, nil
}

// lineCut returns how much of p fits in room bytes, cut after a newline
// when one falls within it.
func lineCut(p []byte, room int) int {
	room = max(room, 1)
	if i := bytes.LastIndexByte(p[:room], '\n'); i >= 0 {
		return i + 1
	}
	return room
}

// Text lists the files and then the patch, fenced as repository data.
func (o DiffOut) Text() string {
	var b strings.Builder
	if o.Commit != nil {
		c := o.Commit
		fmt.Fprintf(&b, "commit %s\nAuthor: %s\nDate:   %s\n", c.SHA, personText(c.Author), c.Author.Time)
		if c.Committer != nil {
			fmt.Fprintf(&b, "Commit: %s\nCommitDate: %s\n", personText(*c.Committer), c.Committer.Time)
		}
		msg := c.Subject + "\n"
		if c.Body != "" {
			msg += "\n" + c.Body
		}
		b.WriteString(toolkit.Fence("Message:", msg))
		b.WriteString("\n")
	}
	base := o.Base
	if base == "" {
		base = "the empty tree"
	}
	fmt.Fprintf(&b, "%s changed from %s to %s, +%d -%d", toolkit.Count(o.TotalFiles, "file", "files"), base, o.Head, o.TotalAdded, o.TotalRemoved)
	if len(o.Files) < o.TotalFiles {
		fmt.Fprintf(&b, "; this page lists %d", len(o.Files))
	}
	b.WriteString(":\n")
	for _, f := range o.Files {
		fmt.Fprintf(&b, "  %s\n", fileText(f))
	}
	if o.patch != "" {
		b.WriteString(toolkit.Fence("Patch:", o.patch))
	}
	if o.Truncated {
		b.WriteString("\n[more: continue with cursor " + o.NextCursor + "]")
	}
	return b.String()
}
