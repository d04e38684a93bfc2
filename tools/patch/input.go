package patch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
)

// generate_patch is lenient about how a change is written and strict about
// what it becomes. A diff or an envelope is read into fileEdits, whose
// hunks are located in the base file by their context and removed lines
// (locate.go), not by the numbers in their headers. Every liberty taken is
// a Correction in the result, and what is approved is the canonical diff
// rendered from the result, never the input.

// Correction is one liberty generate_patch took in reading a diff or an
// envelope: what the input said and what was used instead.
type Correction struct {
	// Path is the file concerned; empty when the correction is about the whole input.
	Path string `json:"path,omitempty"`
	// Hunk is the 1-based hunk of that file; 0 for the file or the input as a whole.
	Hunk int `json:"hunk,omitempty"`
	// Kind is what was corrected: fence, crlf, format, leading_text, prefix, recount, offset, eol, whitespace or no_newline_marker.
	Kind string `json:"kind"`
	// Detail says what the input said and what was used instead.
	Detail string `json:"detail"`
}

// Kinds of Correction.
const (
	fixFence     = "fence"             // a Markdown fence around the input was removed
	fixCRLF      = "crlf"              // the input's CRLF line ends were read as LF
	fixFormat    = "format"            // an envelope was given as diff, or a diff as patch
	fixLeading   = "leading_text"      // text before the first file header was ignored
	fixPrefix    = "prefix"            // file names without (or with stray) a/ b/ prefixes
	fixRecount   = "recount"           // hunk lengths differ from the header's counts
	fixOffset    = "offset"            // the hunk was found at another line than its header says
	fixEOL       = "eol"               // the file's CRLF or LF line ends differ from the hunk's
	fixSpace     = "whitespace"        // context lines differ from the file in trailing whitespace
	fixNoNewline = "no_newline_marker" // the file lacks a final newline the hunk does not mark
)

// Input formats of generate_patch.
const (
	formatDiff     = "diff"
	formatEnvelope = "patch"
)

// notes collects the corrections of one generate_patch call.
type notes struct{ list []Correction }

func (n *notes) add(path string, hunk int, kind, format string, args ...any) {
	n.list = append(n.list, Correction{Path: path, Hunk: hunk, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// applyText reads a diff or an envelope (given in the field named format)
// and applies it to the overlay, adding what it corrected to n.
func (o *overlay) applyText(ctx context.Context, format, text string, n *notes) error {
	if strings.TrimSpace(text) == "" {
		return server.Errorf(server.InvalidInput, "the %s is empty", format)
	}
	text = normalizeInput(text, n)
	var edits []*fileEdit
	var err error
	if isEnvelope(text) {
		if format == formatDiff {
			n.add("", 0, fixFormat, "diff holds an apply_patch envelope (*** Begin Patch); read as one")
		}
		edits, err = parseEnvelope(text)
	} else {
		if format == formatEnvelope {
			n.add("", 0, fixFormat, "patch holds a unified diff, not an envelope; read as a diff")
		}
		edits, err = parseUnified(text, n)
	}
	if err != nil {
		return err
	}
	for _, fe := range edits {
		if err := o.applyFileEdit(ctx, fe, n); err != nil {
			return fe.wrap(err)
		}
	}
	return nil
}

// normalizeInput removes a Markdown fence around the whole input and reads
// CRLF line ends as LF, noting each. A file's own CRLF line ends are kept
// when hunks are applied (see locate.go).
func normalizeInput(text string, n *notes) string {
	if strings.Count(text, "\r\n") > 0 && strings.Count(text, "\r\n") == strings.Count(text, "\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		n.add("", 0, fixCRLF, "the input's lines end in CRLF; read as LF")
	}
	lines := strings.Split(text, "\n")
	open, close := -1, -1
	for i, l := range lines {
		switch {
		case open < 0 && strings.HasPrefix(l, "```"):
			open = i
		case open >= 0 && strings.TrimRight(l, " \t") == "```":
			close = i
		}
	}
	if open < 0 || close < 0 {
		return text
	}
	for _, l := range lines[open+1 : close] {
		if strings.HasPrefix(l, "```") {
			return text // several fenced blocks: which one is meant is a guess
		}
	}
	n.add("", 0, fixFence, "removed the Markdown fence %q ... \"```\" around the input", truncate(lines[open], 40))
	if outside := nonBlank(lines[:open]) + nonBlank(lines[close+1:]); outside > 0 {
		n.add("", 0, fixLeading, "ignored %d lines of text outside the fence", outside)
	}
	return strings.Join(lines[open+1:close], "\n") + "\n"
}

func nonBlank(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// fileEdit is one file of a diff or an envelope, before it is applied.
type fileEdit struct {
	label    string // names it in errors: "diff file 2" or "Update File a.go"
	from, to string // paths as written; "" for none
	newMode  uint32 // 0 to keep the mode (or 100644 for a new file)
	// loose says from and to were written without the a/ b/ prefixes git
	// writes, so a name that does not exist may still have a stray one.
	loose  bool
	delete bool // delete from whatever it holds (an envelope's Delete File)
	// created and deleted are git's "new file mode" and "deleted file
	// mode" headers, which say so when no ---/+++ line does.
	created, deleted bool
	hunks            []*hunk
}

func (fe *fileEdit) wrap(err error) error {
	if se := (*server.Error)(nil); errors.As(err, &se) {
		c := *se
		c.Message = fe.label + ": " + se.Message
		return &c
	}
	return err
}

// hunk is one change to a file: the lines it expects (old) and the lines
// that replace them (new).
type hunk struct {
	n      int    // 1-based, within its file
	header string // as written, for messages
	start  int    // the first old line its header states, 1-based; 0 when it states none
	// written is the header's old start as written ("-N,0" names the line
	// before an insertion, so start is then N+1); numbered says the
	// header of a diff hunk had numbers at all; unified says the hunk is
	// a diff's (an envelope's chunks have no numbers by design).
	written           int
	numbered, unified bool
	// statedOld and statedNew are the header's counts; -1 when not stated.
	statedOld, statedNew int
	anchors              []string // an envelope's "@@ line"s: lines the hunk follows, in order
	atEOF                bool     // the old lines end the file
	old, new             []line
	// ctx maps each new line to the old line it repeats (a context line),
	// or -1 for an added line.
	ctx    []int
	oldCtx []bool // whether each old line is a context line; see isContext
}

// name is how a message names the hunk.
func (h *hunk) name() string {
	return fmt.Sprintf("hunk %d (%s)", h.n, truncate(h.header, 80))
}

// addBodyLine adds a line of a hunk's body by its marker: ' ' context
// (an empty line too, as GNU diff writes empty context), '-' removed, '+'
// added. It reports false, adding nothing, for any other marker.
func (h *hunk) addBodyLine(raw string) bool {
	if raw == "" {
		raw = " "
	}
	l := line{text: raw[1:], nl: true}
	switch raw[0] {
	case ' ':
		h.addContext(l)
	case '-':
		h.addOld(l)
	case '+':
		h.addNew(l)
	default:
		return false
	}
	return true
}

func (h *hunk) addContext(l line) {
	h.ctx = append(h.ctx, len(h.old))
	h.old, h.new = append(h.old, l), append(h.new, l)
}

func (h *hunk) addOld(l line) { h.old = append(h.old, l) }

func (h *hunk) addNew(l line) {
	h.ctx = append(h.ctx, -1)
	h.new = append(h.new, l)
}
