package readfile

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

const (
	// maxBudget bounds max_bytes: the content one call returns.
	maxBudget = 1 << 20
	// maxResultBytes leaves room for the header, the fence and the
	// structured result beside a full budget of content.
	maxResultBytes = maxBudget + 64<<10
	// sniffBytes is how much of a file decides whether it is text.
	sniffBytes = 8000
)

// ReadFileIn is what read_file takes.
type ReadFileIn struct {
	toolkit.Target
	// Path is the file, relative to the repository root, with forward slashes.
	Path string `json:"path" jsonschema:"minLength=1,maxLength=4096"`
	// StartLine is the first line to return, 1-based. Default 1.
	StartLine int `json:"start_line,omitempty" jsonschema:"minimum=1,maximum=2147483647"`
	// EndLine is the last line to return, inclusive. Default: the last line of the file.
	EndLine int `json:"end_line,omitempty" jsonschema:"minimum=1,maximum=2147483647"`
	// MaxBytes is the byte budget of the returned content. Default 256 KiB; at most 1 MiB.
	MaxBytes int `json:"max_bytes,omitempty" jsonschema:"minimum=1,maximum=1048576"`
	// Encoding is "text" (the default; binary files are refused) or "base64" (any file, as bytes from offset).
	Encoding string `json:"encoding,omitempty" jsonschema:"enum=text,enum=base64"`
	// Offset is the first byte to return, with encoding base64.
	Offset int64 `json:"offset,omitempty" jsonschema:"minimum=0"`
}

// Scope names the file read.
func (in ReadFileIn) Scope() workspace.Scope { return in.Target.Scope().WithPaths(in.Path) }

// ReadFileOut is what read_file returns besides the content itself, which
// is the text content of the result.
type ReadFileOut struct {
	// Revision is the full commit SHA read, or "worktree".
	Revision string `json:"revision"`
	// Path is the normalized path read.
	Path string `json:"path"`
	// Type is "file" or "symlink".
	Type string `json:"type"`
	// BlobSHA is the git object id of the file's content (absent for a partial read of the working tree).
	BlobSHA string `json:"blob_sha,omitempty"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// Encoding is how the content is given: "text" or "base64".
	Encoding string `json:"encoding"`
	// TotalLines is the number of lines of a text file; -1 when the file is too large to count.
	TotalLines int `json:"total_lines"`
	// StartLine is the first line returned (text).
	StartLine int `json:"start_line,omitempty"`
	// EndLine is the last line returned, possibly cut (text).
	EndLine int `json:"end_line,omitempty"`
	// Offset is the first byte returned (base64).
	Offset int64 `json:"offset,omitempty"`
	// Bytes is the number of content bytes returned.
	Bytes int `json:"bytes"`
	// Truncated says the content stops before what was asked for.
	Truncated bool `json:"truncated"`
	// LineCut says the last line returned was cut at the byte budget.
	LineCut bool `json:"line_cut,omitempty"`
	// NextStartLine is the start_line that continues a truncated text read.
	NextStartLine int `json:"next_start_line,omitempty"`
	// NextOffset is the offset that continues a truncated base64 read.
	NextOffset int64 `json:"next_offset,omitempty"`
	// LinkTarget is a symlink's target text.
	LinkTarget string `json:"link_target,omitempty"`
	// LinkPath is the in-tree path a symlink points to, when it stays inside the repository.
	LinkPath string `json:"link_path,omitempty"`

	// content is the page: for a text read, a slice of the workspace's
	// cached copy of the file, which nothing writes to.
	content []byte
	// workspace and maxResource let Links name the whole file (resource.go).
	workspace   string
	maxResource int64
	// limit is set when the content ends at the read limit: the number of
	// bytes whose lines text reads number.
	limit int
}

// Text renders the content, fenced as repository data.
func (o ReadFileOut) Text() string {
	return string(bytes.Join(o.TextPieces(), nil))
}

// TextPieces renders the content fenced as repository data, in pieces
// ([server.TextPiecer]): the page itself is the workspace's cached copy of
// the file, which the server escapes straight into its answer, so that a
// page of a megabyte is not copied into a string on the way.
func (o ReadFileOut) TextPieces() [][]byte {
	switch {
	case o.Type == string(workspace.TypeSymlink) && o.LinkPath != "":
		return [][]byte{fmt.Appendf(nil, "%s at %s is a symlink to %q, which is the in-tree path %s; read that path instead.", o.Path, o.Revision, o.LinkTarget, o.LinkPath)}
	case o.Type == string(workspace.TypeSymlink):
		return [][]byte{fmt.Appendf(nil, "%s at %s is a symlink to %q, which leads outside the repository; it is not followed.", o.Path, o.Revision, o.LinkTarget)}
	}
	var header string
	if o.Encoding == "base64" {
		header = fmt.Sprintf("%s at %s, bytes %d-%d of %d, base64:", o.Path, o.Revision, o.Offset, o.Offset+int64(o.Bytes), o.Size)
	} else {
		header = fmt.Sprintf("%s at %s, lines %d-%d of %d:", o.Path, o.Revision, o.StartLine, o.EndLine, o.TotalLines)
	}
	open, close := toolkit.FenceParts(header, o.content)
	tail := []byte(close)
	switch {
	case o.Truncated && o.Encoding == "base64":
		tail = fmt.Appendf(tail, "\n[truncated at the byte budget: continue with offset %d]", o.NextOffset)
	case o.Truncated && o.limit > 0:
		tail = fmt.Appendf(tail, "\n[truncated at the read limit: text reads number the lines of the first %d bytes of the %d; line %d and later are read with encoding base64 from offset %d]",
			o.limit, o.Size, o.NextStartLine, o.limit)
	case o.Truncated:
		tail = fmt.Appendf(tail, "\n[truncated at the byte budget: continue with start_line %d]", o.NextStartLine)
	}
	return [][]byte{[]byte(open), o.content, tail}
}

// readFile reads what in asks for; lines holds the line indexes of large
// files read lately.
func readFile(ctx context.Context, reg *workspace.Registry, lines *lineIndexes, req *server.Request, in ReadFileIn) (ReadFileOut, error) {
	if in.EndLine != 0 && in.EndLine < max(in.StartLine, 1) {
		return ReadFileOut{}, server.Errorf(server.InvalidInput, "end_line %d is before start_line %d", in.EndLine, max(in.StartLine, 1))
	}
	if in.Offset != 0 && in.Encoding != "base64" {
		return ReadFileOut{}, server.Errorf(server.InvalidInput, "offset is for encoding base64; text reads are by line")
	}
	snap, err := toolkit.Snapshot(ctx, reg, req, in.Target)
	if err != nil {
		return ReadFileOut{}, err
	}
	budget := int64(in.MaxBytes)
	if budget == 0 {
		budget = min(reg.Options().ReadBudget, maxBudget)
	}
	if in.Encoding == "base64" {
		return readBytes(ctx, snap, in.Path, in.Offset, budget)
	}
	// Lines are found by reading the file from its start, up to the
	// registry's largest read. The content is only scanned and the page
	// copied out of it, so it is the workspace's cached copy: paging
	// through a large file then costs each page, not the file each time.
	f, err := snap.ReadFile(ctx, in.Path, workspace.ReadOptions{Limit: reg.Options().MaxReadBytes, Shared: true})
	if err != nil {
		return ReadFileOut{}, err
	}
	out := ReadFileOut{Revision: snap.Revision().SHA, Path: f.Path, Type: string(f.Type), BlobSHA: f.SHA, Size: f.Size, Encoding: "text"}
	if f.Type == workspace.TypeSymlink {
		out.LinkTarget = f.Target
		out.LinkPath, _ = f.LinkPath()
		return out, nil
	}
	if binary(f.Data) {
		return ReadFileOut{}, server.Errorf(server.InvalidInput, "%s is a binary file (%d bytes)", f.Path, f.Size).
			WithHint("ask again with encoding base64 to read its bytes")
	}
	return selectLines(out, f, lines, in.StartLine, in.EndLine, budget)
}

// selectLines fills out with lines start..end of f within budget bytes.
// When f stops at the read limit (f.Truncated), only its complete lines
// are numbered: a read that reaches the last of them is truncated and
// names the next line, and a line past them is refused as past the read
// limit, with the byte offset at which base64 reads continue. lines finds
// the page in a large file (and may be nil).
func selectLines(out ReadFileOut, f workspace.File, lines *lineIndexes, start, end int, budget int64) (ReadFileOut, error) {
	data := f.Data
	if f.Truncated {
		out.TotalLines = -1 // more lines follow what was scanned
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1] // the last line read may go on past the limit
		}
	}
	index := lines.index(f.SHA, data)
	total := index.newlines()
	if len(data) > 0 && data[len(data)-1] != '\n' {
		total++
	}
	if !f.Truncated {
		out.TotalLines = total
	}
	start = max(start, 1)
	if total == 0 && start == 1 && !f.Truncated {
		out.StartLine, out.EndLine = 1, 0
		return out, nil
	}
	if start > total && f.Truncated {
		return ReadFileOut{}, server.Errorf(server.InvalidInput,
			"start_line %d is past the read limit: text reads number the lines of the first %d bytes of %s (%d bytes), which hold %d whole lines",
			start, len(data), f.Path, f.Size, total).
			WithHint(fmt.Sprintf("read on with encoding base64 from offset %d", len(data)))
	}
	if start > total {
		return ReadFileOut{}, server.Errorf(server.InvalidInput, "start_line %d is past the end of %s (%d lines)", start, f.Path, total)
	}
	wanted := end // what the caller asked for; 0: to the end of the file
	if end == 0 || end > total {
		end = total
	}
	out.StartLine = start
	from := index.lineStart(data, start)
	pos, n := fitLines(data[from:], end-start+1, budget)
	pos += from
	line := start + n
	out.EndLine = line - 1
	if line == start {
		// Not even the first line fits: give as much of it as the budget
		// holds, cut on a character boundary.
		cut := from + int(budget)
		for cut > from && !utf8.RuneStart(data[cut]) {
			cut--
		}
		pos, out.EndLine, out.LineCut = cut, start, true
	}
	out.content = data[from:pos:pos] // full: an append copies, never writes the cache
	out.Bytes = pos - from
	// A read that ends at the read limit is cut too, unless the caller
	// asked for no line beyond it.
	atLimit := f.Truncated && out.EndLine == total && (wanted == 0 || wanted > total)
	if out.EndLine < end || out.LineCut || atLimit {
		out.Truncated = true
		out.NextStartLine = out.EndLine + 1
	}
	if atLimit {
		out.limit = len(data)
	}
	return out, nil
}

// lineChunk is how much of a text lineStart counts the lines of at once.
const lineChunk = 64 << 10

// lineStart returns the offset of line n (from 1) of data, which holds at
// least n-1 newlines. It counts newlines a chunk at a time, as bytes.Count
// does them fastest, and walks line by line only in the chunk where the
// line starts: a page deep in a large file costs a scan at memory speed,
// not a call per line before it.
func lineStart(data []byte, n int) int {
	pos := 0
	for n > 1 {
		chunk := data[pos:min(len(data), pos+lineChunk)]
		if k := bytes.Count(chunk, []byte("\n")); k < n-1 {
			pos, n = pos+len(chunk), n-k
			continue
		}
		for ; n > 1; n-- {
			pos += bytes.IndexByte(data[pos:], '\n') + 1
		}
	}
	return pos
}

// fitLines returns how many of the first lines of data, at most limit,
// fit in budget bytes, and where they end; the last line need not end in
// a newline.
func fitLines(data []byte, limit int, budget int64) (end, lines int) {
	fit := data[:min(int64(len(data)), max(budget, 0))]
	lines = bytes.Count(fit, []byte("\n"))
	limit = max(limit, 0)
	if len(fit) == len(data) && len(data) > 0 && data[len(data)-1] != '\n' && lines < limit {
		return len(data), lines + 1 // the whole rest, its last line unended
	}
	if lines <= limit {
		return bytes.LastIndexByte(fit, '\n') + 1, lines // every whole line in the budget
	}
	return lineStart(data, limit+1), limit
}

// readBytes returns a file's bytes from offset, base64-encoded.
func readBytes(ctx context.Context, snap *workspace.Snapshot, path string, offset, budget int64) (ReadFileOut, error) {
	f, err := snap.ReadFile(ctx, path, workspace.ReadOptions{Offset: offset, Limit: budget * 3 / 4, Shared: true})
	if err != nil {
		return ReadFileOut{}, err
	}
	out := ReadFileOut{Revision: snap.Revision().SHA, Path: f.Path, Type: string(f.Type), BlobSHA: f.SHA, Size: f.Size, Encoding: "base64", TotalLines: -1}
	if f.Type == workspace.TypeSymlink {
		out.LinkTarget = f.Target
		out.LinkPath, _ = f.LinkPath()
		return out, nil
	}
	out.Offset = f.Offset
	out.Bytes = len(f.Data)
	out.content = base64.StdEncoding.AppendEncode(nil, f.Data)
	if f.Truncated {
		out.Truncated = true
		out.NextOffset = f.Offset + int64(len(f.Data))
	}
	return out, nil
}

// binary reports whether data looks like something other than UTF-8 text:
// a NUL byte or invalid UTF-8 in its first block.
func binary(data []byte) bool {
	head := data[:min(len(data), sniffBytes)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if len(head) < len(data) {
		// The block may end inside a character.
		for i := 0; i < utf8.UTFMax-1 && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1]
		}
	}
	return !utf8.Valid(head)
}
