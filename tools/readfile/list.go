package readfile

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// ListFilesIn is what list_files takes.
type ListFilesIn struct {
	toolkit.Target
	// Path is the directory to list, relative to the repository root. Default: the root.
	Path string `json:"path,omitempty" jsonschema:"maxLength=4096"`
	// Pattern keeps only entries whose path below the directory matches this glob (** matches any number of directories, * and ? stay within one).
	Pattern string `json:"pattern,omitempty" jsonschema:"maxLength=512"`
	// Recursive lists the whole subtree instead of the direct children.
	Recursive bool `json:"recursive,omitempty"`
	// Limit is the most entries one page holds. Default 1000; at most 10000.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=10000"`
	// Cursor continues a listing: the next_cursor of the previous page, with the same other arguments.
	Cursor string `json:"cursor,omitempty" jsonschema:"maxLength=8192"`
	// Sizes adds each file's size in bytes (and a symlink's target length) to the entries. It costs a read of the header of every file listed, so ask only when sizes matter. Pages of one listing may differ in it.
	Sizes bool `json:"sizes,omitempty"`
}

// Scope names the directory listed (the pattern is a filter, not a path).
func (in ListFilesIn) Scope() workspace.Scope { return in.Target.Scope().WithPaths(in.Path) }

// ListFilesOut is one page of a listing.
type ListFilesOut struct {
	// Revision is the full commit SHA listed, or "worktree".
	Revision string `json:"revision"`
	// Path is the normalized directory listed ("" is the root).
	Path string `json:"path"`
	// Entries are in git tree order (bytewise by path, a directory as if it ended in a slash).
	Entries []FileEntry `json:"entries"`
	// Total is the number of entries of the whole listing, all pages.
	Total int `json:"total"`
	// Truncated says more entries follow this page.
	Truncated bool `json:"truncated"`
	// NextCursor continues the listing when it is truncated.
	NextCursor string `json:"next_cursor,omitempty"`
	// Omitted counts entries withheld by the secret patterns or the caller's policy.
	Omitted int `json:"omitted"`
	// Invalid counts entries whose names cannot be shown safely (such as .git in any spelling) and, on disk, special files.
	Invalid int `json:"invalid"`
}

// FileEntry is one entry of a listing.
type FileEntry struct {
	// Path is relative to the repository root.
	Path string `json:"path"`
	// Type is file, dir, symlink or submodule.
	Type string `json:"type" jsonschema:"enum=file,enum=dir,enum=symlink,enum=submodule"`
	// Size is the size in bytes of a file, or of a symlink's target text; present only when sizes was asked for.
	Size *int64 `json:"size,omitempty"`
	// Mode is the git mode, in octal (100644, 100755, 120000, 040000, 160000).
	Mode string `json:"mode"`
	// Target is a symlink's target text.
	Target string `json:"target,omitempty"`
}

// Text renders the page as one line per entry. A page holds up to 10 000
// entries, so it is written into one builder sized for it, whose String
// does not copy the text again.
func (o ListFilesOut) Text() string {
	size := 160 + len(o.NextCursor)
	for _, e := range o.Entries {
		size += len(e.Path) + len(e.Target) + 16
	}
	var b strings.Builder
	b.Grow(size)
	var num [20]byte
	writeInt := func(n int64) { b.Write(strconv.AppendInt(num[:0], n, 10)) }
	b.WriteString(displayDir(o.Path))
	b.WriteString(" at ")
	b.WriteString(o.Revision)
	b.WriteString(": ")
	writeInt(int64(len(o.Entries)))
	b.WriteString(" of ")
	writeInt(int64(o.Total))
	b.WriteString(" entries")
	if o.Omitted > 0 || o.Invalid > 0 {
		b.WriteString(" (")
		writeInt(int64(o.Omitted))
		b.WriteString(" withheld by policy, ")
		writeInt(int64(o.Invalid))
		b.WriteString(" with unsafe names)")
	}
	b.WriteByte('\n')
	for _, e := range o.Entries {
		b.WriteString(e.Path)
		switch e.Type {
		case "dir":
			b.WriteByte('/')
		case "symlink":
			b.WriteString(" -> ")
			b.WriteString(e.Target)
		case "submodule":
			b.WriteString(" (submodule)")
		default:
			if e.Size != nil {
				b.WriteByte('\t')
				writeInt(*e.Size)
			}
		}
		b.WriteByte('\n')
	}
	if o.Truncated {
		b.WriteString("[more entries: continue with cursor ")
		b.WriteString(o.NextCursor)
		b.WriteByte(']')
	}
	return b.String()
}

func displayDir(p string) string {
	if p == "" {
		return "/"
	}
	return p + "/"
}

// cursor is what next_cursor carries: where the listing stopped, the
// commit and arguments it belongs to (so that the next page comes from the
// same tree or is refused), and the counts of the whole listing, which the
// first page walked the whole tree for and later pages need not walk again.
// Whether sizes are asked for is not part of it: sizes change what an
// entry says, not which entries a listing has nor where a page ends (the
// result budget counts no size), so a later page may ask otherwise.
type cursor struct {
	Revision  string `json:"r"`
	Path      string `json:"p"`
	Pattern   string `json:"g,omitempty"`
	Recursive bool   `json:"d,omitempty"`
	After     string `json:"a"`
	Total     int    `json:"t"`
	Omitted   int    `json:"o,omitempty"`
	Invalid   int    `json:"i,omitempty"`
}

func (c cursor) encode() string {
	data, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(data)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(data, &c)
	}
	if err != nil || c.After == "" {
		return cursor{}, server.Errorf(server.InvalidInput, "cursor is not one this tool returned").
			WithHint("pass next_cursor exactly as received, or omit cursor to start again")
	}
	return c, nil
}

func listFiles(ctx context.Context, reg *workspace.Registry, req *server.Request, in ListFilesIn) (ListFilesOut, error) {
	snap, err := toolkit.Snapshot(ctx, reg, req, in.Target)
	if err != nil {
		return ListFilesOut{}, err
	}
	return listPage(ctx, snap, in)
}

// listPage answers list_files from a snapshot the caller may read.
func listPage(ctx context.Context, snap *workspace.Snapshot, in ListFilesIn) (ListFilesOut, error) {
	var err error
	sha := snap.Revision().SHA
	dir := in.Path
	if dir != "" {
		if dir, err = workspace.CleanPath(dir); err != nil {
			return ListFilesOut{}, err
		}
	}
	var cur *cursor
	if in.Cursor != "" {
		c, err := decodeCursor(in.Cursor)
		if err != nil {
			return ListFilesOut{}, err
		}
		switch {
		case c.Path != dir || c.Pattern != in.Pattern || c.Recursive != in.Recursive:
			return ListFilesOut{}, server.Errorf(server.InvalidInput, "cursor belongs to a listing with other arguments (path, pattern or recursive)")
		case c.Revision != sha:
			return ListFilesOut{}, server.Errorf(server.PreconditionFailed,
				"the revision moved since the first page: it was %s and is now %s", c.Revision, sha).
				WithHint("pass revision " + c.Revision + " to finish the listing of that commit, or start again without cursor")
		}
		cur = &c
	}
	var page workspace.Page
	if cur == nil {
		page, err = snap.List(ctx, dir, workspace.ListOptions{Recursive: in.Recursive, Pattern: in.Pattern, Sizes: in.Sizes, Limit: in.Limit})
	} else {
		page, err = continuePage(ctx, snap, dir, in, *cur)
	}
	if err != nil {
		return ListFilesOut{}, err
	}
	out := ListFilesOut{
		Revision: sha, Path: dir, Entries: make([]FileEntry, 0, len(page.Entries)),
		Total: page.Total, Truncated: page.Truncated, Omitted: page.Omitted, Invalid: page.Invalid,
	}
	// The sizes of a page's entries share one allocation.
	var sizes []int64
	if in.Sizes {
		sizes = make([]int64, len(page.Entries))
	}
	next, size := page.Next, 0
	for i, e := range page.Entries {
		// Each entry appears twice (structured and text), with its JSON
		// punctuation: stop the page before the result outgrows its bound.
		size += 2*(len(e.Path)+len(e.Target)) + entryOverhead
		if size > listBudget && i > 0 {
			out.Truncated, next = true, page.Entries[i-1].Cursor()
			break
		}
		entry := FileEntry{Path: e.Path, Type: string(e.Type), Mode: modeText(e.Mode), Target: e.Target}
		if sizes != nil {
			sizes[i] = max(e.Size, 0)
			entry.Size = &sizes[i]
		}
		out.Entries = append(out.Entries, entry)
	}
	if out.Truncated {
		out.NextCursor = cursor{
			Revision: sha, Path: dir, Pattern: in.Pattern, Recursive: in.Recursive, After: next,
			Total: out.Total, Omitted: out.Omitted, Invalid: out.Invalid,
		}.encode()
	}
	return out, nil
}

// modeText renders a git mode in octal, six digits wide, without
// formatting the modes every tree is made of.
func modeText(m uint32) string {
	switch m {
	case workspace.ModeFile:
		return "100644"
	case workspace.ModeExecutable:
		return "100755"
	case workspace.ModeSymlink:
		return "120000"
	case workspace.ModeDir:
		return "040000"
	case workspace.ModeSubmodule:
		return "160000"
	}
	return fmt.Sprintf("%06o", m)
}

// continuePage lists the page after a cursor: it walks on from where the
// previous page stopped, only as far as this page reaches, and takes the
// counts of the whole listing from the cursor.
func continuePage(ctx context.Context, snap *workspace.Snapshot, dir string, in ListFilesIn, c cursor) (workspace.Page, error) {
	limit := in.Limit
	if limit == 0 {
		limit = workspace.DefaultListLimit
	}
	page := workspace.Page{
		Entries: make([]workspace.Entry, 0, max(min(limit, c.Total), 0)),
		Total:   c.Total, WalkStats: workspace.WalkStats{Omitted: c.Omitted, Invalid: c.Invalid},
	}
	_, err := snap.Walk(ctx, dir, workspace.WalkOptions{Recursive: in.Recursive, Pattern: in.Pattern, Sizes: in.Sizes, After: c.After},
		func(e workspace.Entry) error {
			if len(page.Entries) == limit {
				page.Truncated = true
				return fs.SkipAll
			}
			page.Entries = append(page.Entries, e)
			return nil
		})
	if err != nil {
		return workspace.Page{}, err
	}
	if page.Truncated {
		page.Next = page.Entries[len(page.Entries)-1].Cursor()
	}
	return page, nil
}

const (
	// listResultBytes bounds a list_files result; listBudget is the share
	// entries may take, leaving room for the rest.
	listResultBytes = 4 << 20
	listBudget      = listResultBytes * 3 / 4
	// entryOverhead is an entry's size in a result besides its path and
	// target: the JSON keys, type, size and mode, and the text line.
	entryOverhead = 100
)
