package patch

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	godiff "github.com/sourcegraph/go-diff/diff"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// applyUnified applies a unified diff (git's format or plain diff -u) to
// the overlay. Every hunk must apply exactly where its header says: no
// offsets, no fuzz, no whitespace leniency.
func (o *overlay) applyUnified(ctx context.Context, text string) error {
	if strings.TrimSpace(text) == "" {
		return server.Errorf(server.InvalidInput, "the diff is empty")
	}
	if strings.Contains(text, "\nGIT binary patch") || strings.HasPrefix(text, "GIT binary patch") {
		return server.Errorf(server.InvalidInput, "the diff holds a binary patch; binary changes are refused")
	}
	fds, err := godiff.ParseMultiFileDiff([]byte(text))
	if err != nil {
		return server.Errorf(server.InvalidInput, "the diff does not parse: %v", err)
	}
	if len(fds) == 0 {
		return server.Errorf(server.InvalidInput, "the diff names no file")
	}
	for i, fd := range fds {
		if err := o.applyFileDiff(ctx, fd); err != nil {
			if se, ok := err.(*server.Error); ok {
				c := *se
				c.Message = fmt.Sprintf("diff file %d: %s", i+1, se.Message)
				return &c
			}
			return err
		}
	}
	return nil
}

// header is what a file diff's headers say.
type header struct {
	from, to         string // "" for /dev/null
	newMode, oldMode uint32 // 0 when not given
}

func parseHeader(fd *godiff.FileDiff) (header, error) {
	var h header
	var err error
	if h.from, err = stripName(fd.OrigName, "a/"); err != nil {
		return h, err
	}
	if h.to, err = stripName(fd.NewName, "b/"); err != nil {
		return h, err
	}
	for _, line := range fd.Extended {
		key, val := extendedHeader(line)
		switch key {
		case "GIT binary patch", "Binary files":
			return h, server.Errorf(server.InvalidInput, "binary patches are refused")
		case "copy from", "copy to":
			return h, server.Errorf(server.InvalidInput, "copies are not supported; write the new file instead")
		case "rename from":
			h.from = val
		case "rename to":
			h.to = val
		case "new file mode", "new mode":
			if h.newMode, err = parseMode(val); err != nil {
				return h, err
			}
		case "deleted file mode", "old mode":
			if h.oldMode, err = parseMode(val); err != nil {
				return h, err
			}
		}
	}
	if h.from == "" && h.to == "" {
		return h, server.Errorf(server.InvalidInput, "the file diff names no file")
	}
	return h, nil
}

func extendedHeader(line string) (key, val string) {
	for _, k := range []string{"GIT binary patch", "Binary files", "copy from ", "copy to ", "rename from ", "rename to ",
		"new file mode ", "new mode ", "deleted file mode ", "old mode "} {
		if rest, ok := strings.CutPrefix(line, k); ok {
			return strings.TrimSpace(k), strings.TrimSpace(rest)
		}
	}
	return "", ""
}

// stripName turns a ---/+++ name into a path: "" for /dev/null, the name
// without its a/ or b/ prefix otherwise. Quoted names are refused (git
// quotes names with unusual bytes, which CleanPath would refuse anyway).
func stripName(name, prefix string) (string, error) {
	name, _, _ = strings.Cut(name, "\t") // a timestamp
	switch {
	case name == "/dev/null" || name == "":
		return "", nil
	case strings.HasPrefix(name, `"`):
		return "", server.Errorf(server.InvalidInput, "quoted file name %s is refused", strconv.Quote(truncate(name, 200)))
	}
	return strings.TrimPrefix(name, prefix), nil
}

func parseMode(s string) (uint32, error) {
	switch s {
	case "100644":
		return workspace.ModeFile, nil
	case "100755":
		return workspace.ModeExecutable, nil
	}
	return 0, server.Errorf(server.InvalidInput, "file mode %q is refused; only 100644 and 100755 files can be written (no symlinks, no submodules)", truncate(s, 20))
}

func (o *overlay) applyFileDiff(ctx context.Context, fd *godiff.FileDiff) error {
	h, err := parseHeader(fd)
	if err != nil {
		return err
	}
	var src *ofile
	var srcPath string
	if h.from != "" {
		if srcPath, src, err = o.get(ctx, h.from); err != nil {
			return err
		}
		if !src.exists {
			return server.Errorf(server.InvalidInput, "%q does not exist at the base", h.from)
		}
	}
	var old []byte
	mode := workspace.ModeFile
	if src != nil {
		old, mode = src.data, src.mode
	}
	if h.newMode != 0 {
		mode = h.newMode
	}
	data, err := applyHunks(old, fd.Hunks)
	if err != nil {
		return err
	}
	if h.to == "" { // deletion
		if len(data) != 0 {
			return server.Errorf(server.InvalidInput, "the deletion of %q does not remove all of its lines", h.from)
		}
		src.exists, src.data = false, nil
		return nil
	}
	dstPath, dst, err := o.get(ctx, h.to)
	if err != nil {
		return err
	}
	if dstPath != srcPath {
		if dst.exists {
			return server.Errorf(server.InvalidInput, "%q already exists at the base", h.to)
		}
		if src != nil {
			src.exists, src.data = false, nil
		}
	}
	dst.exists, dst.data, dst.mode = true, data, mode
	return nil
}

// line is one line of a file: its text and whether it ends in a newline.
type line struct {
	text string
	nl   bool
}

// splitLines splits content into lines.
func splitLines(data []byte) []line {
	var out []line
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, line{text: string(data)})
			break
		}
		out = append(out, line{text: string(data[:i]), nl: true})
		data = data[i+1:]
	}
	return out
}

// hunkLines returns a hunk's lines on the old and the new side.
func hunkLines(h *godiff.Hunk) (old, new []line, err error) {
	body := h.Body
	off := 0
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		var raw []byte
		nl := true
		if i < 0 {
			raw, body, nl = body, nil, false
		} else {
			raw, body = body[:i], body[i+1:]
		}
		off += len(raw) + 1
		if len(raw) == 0 {
			return nil, nil, server.Errorf(server.InvalidInput, "hunk @@ -%d +%d @@ has an empty line (a context line needs its leading space)", h.OrigStartLine, h.NewStartLine)
		}
		l := line{text: string(raw[1:]), nl: nl}
		switch raw[0] {
		case ' ':
			old, new = append(old, l), append(new, l)
		case '-':
			if h.OrigNoNewlineAt > 0 && int32(off) == h.OrigNoNewlineAt {
				l.nl = false
			}
			old = append(old, l)
		case '+':
			new = append(new, l)
		default:
			return nil, nil, server.Errorf(server.InvalidInput, "hunk @@ -%d +%d @@ has a line starting with %q", h.OrigStartLine, h.NewStartLine, raw[:1])
		}
	}
	if len(old) != int(h.OrigLines) || len(new) != int(h.NewLines) {
		return nil, nil, server.Errorf(server.InvalidInput, "hunk @@ -%d,%d +%d,%d @@ has %d old and %d new lines, not what its header says",
			h.OrigStartLine, h.OrigLines, h.NewStartLine, h.NewLines, len(old), len(new))
	}
	return old, new, nil
}

// applyHunks applies hunks to content exactly.
func applyHunks(content []byte, hunks []*godiff.Hunk) ([]byte, error) {
	base := splitLines(content)
	var out bytes.Buffer
	next := 0 // index of the first base line not yet copied
	for _, h := range hunks {
		old, new, err := hunkLines(h)
		if err != nil {
			return nil, err
		}
		start := int(h.OrigStartLine) - 1
		if h.OrigLines == 0 {
			start = int(h.OrigStartLine) // an insertion after line OrigStartLine
		}
		if start < next || start+len(old) > len(base) {
			return nil, server.Errorf(server.InvalidInput, "hunk @@ -%d,%d @@ does not fit the base file (%d lines) after the hunks before it",
				h.OrigStartLine, h.OrigLines, len(base))
		}
		for k, l := range old {
			if base[start+k] != l {
				return nil, server.Errorf(server.InvalidInput, "hunk @@ -%d,%d @@ does not apply: line %d of the base is %q, the hunk expects %q",
					h.OrigStartLine, h.OrigLines, start+k+1, truncate(base[start+k].text, 200), truncate(l.text, 200)).
					WithHint("the diff must apply exactly to the base revision; regenerate it against that revision")
			}
		}
		writeLines(&out, base[next:start])
		writeLines(&out, new)
		next = start + len(old)
	}
	writeLines(&out, base[next:])
	return out.Bytes(), nil
}

func writeLines(b *bytes.Buffer, lines []line) {
	for _, l := range lines {
		b.WriteString(l.text)
		if l.nl {
			b.WriteByte('\n')
		}
	}
}
