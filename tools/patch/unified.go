package patch

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// parseUnified reads a unified diff (git's format or diff -u) into file
// edits. Hunk lengths come from the hunk bodies, not from the headers (as
// git apply --recount), so a header with wrong counts is corrected and
// noted; the header's start line is only where the search begins.
func parseUnified(text string, n *notes) ([]*fileEdit, error) {
	if strings.Contains(text, "\nGIT binary patch") || strings.HasPrefix(text, "GIT binary patch") {
		return nil, server.Errorf(server.InvalidInput, "the diff holds a binary patch; binary changes are refused")
	}
	p := &diffParser{lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n"), notes: n}
	return p.parse()
}

// diffParser walks the lines of a diff.
type diffParser struct {
	lines []string
	i     int // the next line
	notes *notes
	files []*fileEdit
}

func (p *diffParser) parse() ([]*fileEdit, error) {
	skipped := 0
	for p.i < len(p.lines) && !p.atFileHeader() {
		if strings.HasPrefix(p.lines[p.i], "@@") {
			return nil, p.errorf("a hunk comes before any file header (--- a/path, +++ b/path)")
		}
		if strings.TrimSpace(p.lines[p.i]) != "" {
			skipped++
		}
		p.i++
	}
	if skipped > 0 {
		p.notes.add("", 0, fixLeading, "ignored %d lines of text before the first file header", skipped)
	}
	for p.i < len(p.lines) {
		fe, err := p.file()
		if err != nil {
			return nil, err
		}
		p.files = append(p.files, fe)
	}
	if len(p.files) == 0 {
		return nil, server.Errorf(server.InvalidInput, "the diff names no file (no \"--- a/path\" and \"+++ b/path\" lines)")
	}
	return p.files, nil
}

func (p *diffParser) errorf(format string, args ...any) *server.Error {
	return server.Errorf(server.InvalidInput, "line %d of the diff: %s", p.i+1, fmt.Sprintf(format, args...))
}

// atFileHeader says whether line i starts a file: "diff --git" or a
// "---" line followed by a "+++" line.
func (p *diffParser) atFileHeader() bool {
	l := p.lines[p.i]
	if strings.HasPrefix(l, "diff --git ") {
		return true
	}
	return strings.HasPrefix(l, "--- ") && p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i+1], "+++ ")
}

// file reads one file's headers and hunks.
func (p *diffParser) file() (*fileEdit, error) {
	fe := &fileEdit{label: fmt.Sprintf("diff file %d", len(p.files)+1)}
	var gitFrom, gitTo string
	haveNames := false
	if rest, ok := strings.CutPrefix(p.lines[p.i], "diff --git "); ok {
		gitFrom, gitTo = splitGitNames(rest)
		p.i++
		for p.i < len(p.lines) && !strings.HasPrefix(p.lines[p.i], "--- ") && !strings.HasPrefix(p.lines[p.i], "@@") &&
			!strings.HasPrefix(p.lines[p.i], "diff --git ") {
			if err := p.extended(fe); err != nil {
				return nil, err
			}
			p.i++
		}
	}
	if p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i], "--- ") && strings.HasPrefix(p.lines[p.i+1], "+++ ") {
		from, err := headerName(p.lines[p.i][4:])
		if err != nil {
			return nil, err
		}
		to, err := headerName(p.lines[p.i+1][4:])
		if err != nil {
			return nil, err
		}
		p.i += 2
		if fe.from == "" && fe.to == "" { // rename from/to win over the ---/+++ names
			fe.from, fe.to = from, to
			haveNames = true
		}
	}
	if !haveNames && fe.from == "" && fe.to == "" {
		fe.from, fe.to = gitFrom, gitTo
		if fe.from == "" && fe.to == "" {
			return nil, p.errorf("the file diff names no file")
		}
	}
	if haveNames {
		p.stripPrefixes(fe)
	}
	if fe.created {
		fe.from = ""
	}
	if fe.deleted {
		fe.to = ""
	}
	fe.label += " (" + describeNames(fe.from, fe.to) + ")"
	for p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], "@@") {
		h, err := p.hunk(len(fe.hunks) + 1)
		if err != nil {
			return nil, err
		}
		fe.hunks = append(fe.hunks, h)
	}
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
	if p.i < len(p.lines) && !p.atFileHeader() {
		if p.lines[p.i] == "-- " { // the signature of a git format-patch mail
			p.i = len(p.lines)
			return fe, nil
		}
		return nil, p.errorf("%q is neither a hunk line (starting with ' ', '-' or '+') nor a file header", truncate(p.lines[p.i], 80))
	}
	return fe, nil
}

// extended reads one of git's extended header lines.
func (p *diffParser) extended(fe *fileEdit) error {
	key, val := extendedHeader(p.lines[p.i])
	var err error
	switch key {
	case "GIT binary patch", "Binary files":
		return p.errorf("binary patches are refused")
	case "copy from", "copy to":
		return p.errorf("copies are not supported; write the new file instead")
	case "rename from":
		fe.from = val
	case "rename to":
		fe.to = val
	case "new file mode":
		fe.created = true
		fe.newMode, err = parseMode(val)
	case "new mode":
		fe.newMode, err = parseMode(val)
	case "deleted file mode":
		fe.deleted = true
		_, err = parseMode(val)
	case "old mode":
		_, err = parseMode(val)
	}
	return err
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

// splitGitNames splits the names of a "diff --git a/x b/y" line: when both
// are the same path, at the middle; otherwise at the one " b/".
func splitGitNames(rest string) (string, string) {
	if len(rest)%2 == 1 {
		n := (len(rest) - 5) / 2
		if n > 0 && strings.HasPrefix(rest, "a/") && rest[2+n:2+n+3] == " b/" && rest[2:2+n] == rest[5+n:] {
			return rest[2 : 2+n], rest[5+n:]
		}
	}
	if strings.Count(rest, " b/") == 1 && strings.HasPrefix(rest, "a/") {
		a, b, _ := strings.Cut(rest, " b/")
		return a[2:], b
	}
	return "", ""
}

// headerName reads a ---/+++ name: "" for /dev/null, without a timestamp.
// Quoted names are refused (git quotes names with unusual bytes, which
// CleanPath would refuse anyway).
func headerName(name string) (string, error) {
	name, _, _ = strings.Cut(name, "\t") // a timestamp
	name = strings.TrimRight(name, " ")
	switch {
	case name == "/dev/null" || name == "":
		return "", nil
	case strings.HasPrefix(name, `"`):
		return "", server.Errorf(server.InvalidInput, "quoted file name %s is refused", strconv.Quote(truncate(name, 200)))
	}
	return name, nil
}

// stripPrefixes removes git's a/ and b/ prefixes when both names have them
// (or one is /dev/null). Names without them are used as written, and noted;
// applyFileEdit resolves a stray prefix on one side.
func (p *diffParser) stripPrefixes(fe *fileEdit) {
	if (fe.from == "" || strings.HasPrefix(fe.from, "a/")) && (fe.to == "" || strings.HasPrefix(fe.to, "b/")) {
		fe.from, fe.to = strings.TrimPrefix(fe.from, "a/"), strings.TrimPrefix(fe.to, "b/")
		return
	}
	fe.loose = true
}

// The diff parser's regexps are compiled at first use, not at package
// init, which every command of the binary would pay for.
var (
	gitVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+(\.\d+)*`) })
	hunkHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
	})
)

// hunk reads one hunk: its header, then every line up to the next hunk,
// the next file or the end.
func (p *diffParser) hunk(n int) (*hunk, error) {
	head := p.lines[p.i]
	if strings.HasPrefix(head, "@@@") {
		return nil, p.errorf("combined diffs (@@@) are refused; give a diff against one base")
	}
	h := &hunk{n: n, header: head, statedOld: -1, statedNew: -1, unified: true}
	if m := hunkHeader().FindStringSubmatch(head); m != nil {
		h.start, _ = strconv.Atoi(m[1])
		h.written, h.numbered = h.start, true
		h.statedOld, h.statedNew = count(m[2]), count(m[4])
		h.header = m[0]
	}
	p.i++
	end := p.i
	for end < len(p.lines) && !p.endsHunk(end) {
		end++
	}
	body := p.lines[p.i:end]
	for len(body) > 0 && body[len(body)-1] == "" { // blank separator lines, not context
		body = body[:len(body)-1]
	}
	if err := p.hunkBody(h, body); err != nil {
		return nil, err
	}
	p.i = end
	if len(h.old) == 0 && len(h.new) == 0 {
		return nil, p.errorf("%s has no lines", h.name())
	}
	if len(h.old) == 0 && h.numbered && h.statedOld == 0 {
		h.start++ // "-N,0" inserts after line N
	}
	return h, nil
}

// count reads a hunk header's count, which is 1 when omitted.
func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// endsHunk says whether line i is outside the hunk before it.
func (p *diffParser) endsHunk(i int) bool {
	l := p.lines[i]
	switch {
	case strings.HasPrefix(l, "@@"), strings.HasPrefix(l, "diff --git "):
		return true
	case strings.HasPrefix(l, "--- ") && i+1 < len(p.lines) && strings.HasPrefix(p.lines[i+1], "+++ "):
		return true
	case l == "-- " && i+1 < len(p.lines) && gitVersion().MatchString(p.lines[i+1]):
		return true // the signature of a git format-patch mail
	}
	return l != "" && !strings.ContainsAny(l[:1], " -+\\")
}

// hunkBody reads a hunk's lines. An empty line is an empty context line
// (as GNU diff writes it); "\ No newline at end of file" marks the line
// before it.
func (p *diffParser) hunkBody(h *hunk, body []string) error {
	last := byte(0)
	for k, raw := range body {
		if h.addBodyLine(raw) {
			last = cmp.Or(raw, " ")[0]
			continue
		}
		if raw[0] == '\\' { // "\ No newline at end of file"
			switch last {
			case ' ':
				h.old[len(h.old)-1].nl, h.new[len(h.new)-1].nl = false, false
			case '-':
				h.old[len(h.old)-1].nl = false
			case '+':
				h.new[len(h.new)-1].nl = false
			default:
				return server.Errorf(server.InvalidInput, "line %d of the diff: %s starts with %q", p.i+k+1, h.name(), truncate(raw, 40))
			}
		}
		last = raw[0]
	}
	return nil
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
