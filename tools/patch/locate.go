package patch

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
)

// Locating a hunk. A hunk is found by its old lines (context and removed),
// in the base file, at or after the end of the hunk before it:
//
//  1. where its header says, shifted as much as the hunk before it was,
//     comparing exactly or ignoring only CR at line ends: the hunk is
//     taken there, as git apply takes it;
//  2. otherwise anywhere, exactly, then ignoring CR at line ends, then
//     also ignoring trailing whitespace in context lines: the first of
//     these that matches one place is taken; one that matches several
//     places is refused, naming them.
//
// Nothing else is tried: a hunk that matches nowhere is refused, naming
// the closest place. Removed lines always match exactly (up to CR).

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

func writeLines(b *bytes.Buffer, lines []line) {
	for _, l := range lines {
		b.WriteString(l.text)
		if l.nl {
			b.WriteByte('\n')
		}
	}
}

// matchMode is how strictly a hunk's old lines are compared with a file's.
type matchMode int

const (
	matchExact matchMode = iota
	matchCR              // CR at line ends ignored
	matchSpace           // also trailing whitespace of context lines ignored
)

// match is where a hunk was found and what that took.
type match struct {
	pos       int // index of the first old line in the base
	mode      matchMode
	noNewline bool // the base's last line lacks the newline the hunk gives it
}

// fileHunks applies a file's hunks to its base content.
type fileHunks struct {
	path  string
	base  []line
	notes *notes
}

// apply returns the content after every hunk.
func (f *fileHunks) apply(hunks []*hunk) ([]byte, error) {
	var out bytes.Buffer
	next, shift := 0, 0
	for _, h := range hunks {
		f.noteRecount(h)
		m, err := f.locate(h, next, shift)
		if err != nil {
			return nil, err
		}
		switch {
		case h.start > 0:
			shift = m.pos - (h.start - 1)
			if shift != 0 {
				f.notes.add(f.path, h.n, fixOffset, "the header says line %d; the hunk's lines are at line %d", h.written, m.pos+1)
			}
		case h.unified && !h.numbered:
			f.notes.add(f.path, h.n, fixOffset, "the header gives no line numbers; the hunk's lines are at line %d", m.pos+1)
		}
		writeLines(&out, f.base[next:m.pos])
		writeLines(&out, f.replacement(h, m))
		next = m.pos + len(h.old)
	}
	writeLines(&out, f.base[next:])
	return out.Bytes(), nil
}

func (f *fileHunks) noteRecount(h *hunk) {
	if h.statedOld >= 0 && (h.statedOld != len(h.old) || h.statedNew != len(h.new)) {
		f.notes.add(f.path, h.n, fixRecount, "the header counts %d old and %d new lines; the hunk has %d and %d",
			h.statedOld, h.statedNew, len(h.old), len(h.new))
	}
}

// locate finds where h applies, at or after base line next.
func (f *fileHunks) locate(h *hunk, next, shift int) (match, error) {
	// The hunk may start at its last anchor line (models often repeat it
	// as the first context line) or anywhere after it.
	lo, from := next, next
	for _, a := range h.anchors {
		at, err := f.anchor(h, a, from)
		if err != nil {
			return match{}, err
		}
		lo, from = at, at+1
	}
	if len(h.old) == 0 {
		return f.insertion(h, from)
	}
	hi := len(f.base) - len(h.old) // the last position the hunk fits at
	if h.atEOF {
		lo = max(lo, hi)
	}
	if want := h.start - 1 + shift; h.start > 0 && want >= lo && want <= hi {
		for _, mode := range []matchMode{matchExact, matchCR} {
			if m, ok := f.matchAt(h, want, mode); ok {
				return m, nil
			}
		}
	}
	for _, mode := range []matchMode{matchExact, matchCR, matchSpace} {
		var found []match
		for pos := lo; pos <= hi; pos++ {
			if m, ok := f.matchAt(h, pos, mode); ok {
				found = append(found, m)
			}
		}
		switch {
		case len(found) == 1:
			f.noteMode(h, found[0])
			return found[0], nil
		case len(found) > 1:
			return match{}, f.ambiguous(h, found, mode)
		}
	}
	return match{}, f.unmatched(h, lo)
}

// insertion places a hunk without old lines: after its anchor, at the end
// of the file for an envelope chunk without one, or where its header says.
func (f *fileHunks) insertion(h *hunk, lo int) (match, error) {
	switch {
	case len(h.anchors) > 0 || h.atEOF && h.start == 0:
		if h.atEOF {
			lo = len(f.base)
		}
		return match{pos: lo}, nil
	case h.start == 0:
		return match{pos: len(f.base)}, nil // an envelope chunk of + lines adds to the end
	case len(f.base) == 0:
		return match{}, nil // an empty file has one place
	case h.start-1 < lo || h.start-1 > len(f.base):
		return match{}, server.Errorf(server.InvalidInput, "%s has no context or removed lines, and the line its header names (%d) is outside the file (%d lines) or before the hunk before it; add context lines",
			h.name(), h.written, len(f.base))
	}
	return match{pos: h.start - 1}, nil
}

// anchor finds the one line at or after next that equals anchor a, up to
// leading and trailing whitespace.
func (f *fileHunks) anchor(h *hunk, a string, next int) (int, error) {
	want := strings.TrimSpace(a)
	var at []int
	for i := next; i < len(f.base); i++ {
		if strings.TrimSpace(f.base[i].text) == want {
			at = append(at, i)
		}
	}
	switch len(at) {
	case 1:
		return at[0], nil
	case 0:
		where := ""
		if next > 0 {
			where = fmt.Sprintf(" after line %d", next)
		}
		return 0, server.Errorf(server.InvalidInput, "%s: the anchor line %q is not in the file%s", h.name(), truncate(want, 120), where)
	}
	return 0, server.Errorf(server.InvalidInput, "%s: the anchor line %q occurs %d times, at lines %s; use a line that occurs once, or add context lines",
		h.name(), truncate(want, 120), len(at), joinInts(plusOne(at, 10)))
}

// matchAt compares h's old lines with the base at pos.
func (f *fileHunks) matchAt(h *hunk, pos int, mode matchMode) (match, bool) {
	m := match{pos: pos, mode: mode}
	for k, want := range h.old {
		got := f.base[pos+k]
		if !sameText(got.text, want.text, mode, mode == matchSpace && h.isContext(k)) {
			return m, false
		}
		switch {
		case got.nl == want.nl:
		case !got.nl && pos+k == len(f.base)-1 && len(h.old) == k+1:
			m.noNewline = true // the hunk lacks "\ No newline at end of file"
		default:
			return m, false
		}
	}
	return m, true
}

// isContext says whether old line k is also a new line.
func (h *hunk) isContext(k int) bool {
	if h.oldCtx == nil {
		h.oldCtx = make([]bool, len(h.old))
		for _, c := range h.ctx {
			if c >= 0 {
				h.oldCtx[c] = true
			}
		}
	}
	return h.oldCtx[k]
}

func sameText(got, want string, mode matchMode, context bool) bool {
	if got == want {
		return true
	}
	switch {
	case mode == matchExact:
		return false
	case mode == matchSpace && context:
		return strings.TrimRight(got, " \t\r") == strings.TrimRight(want, " \t\r")
	}
	return strings.TrimSuffix(got, "\r") == strings.TrimSuffix(want, "\r")
}

// noteMode notes what a match found by search took.
func (f *fileHunks) noteMode(h *hunk, m match) {
	if m.mode != matchSpace {
		return
	}
	var at []int
	for k, want := range h.old {
		if f.base[m.pos+k].text != want.text && strings.TrimSuffix(f.base[m.pos+k].text, "\r") != strings.TrimSuffix(want.text, "\r") {
			at = append(at, m.pos+k)
		}
	}
	f.notes.add(f.path, h.n, fixSpace, "context lines %s differ from the file in trailing whitespace; the file's lines are kept", joinInts(plusOne(at, 10)))
}

// replacement is h's new lines as they go into the file: context lines as
// the file has them, added lines with the file's line ends.
func (f *fileHunks) replacement(h *hunk, m match) []line {
	crlf := f.crlf()
	eolFixed := false
	out := make([]line, len(h.new))
	for k, l := range h.new {
		if c := h.ctx[k]; c >= 0 {
			l.text = f.base[m.pos+c].text
		} else if m.mode != matchExact {
			t := strings.TrimSuffix(l.text, "\r")
			if crlf {
				t += "\r"
			}
			eolFixed = eolFixed || t != l.text
			l.text = t
		}
		out[k] = l
	}
	if eolFixed || m.mode == matchCR {
		style := "LF"
		if crlf {
			style = "CRLF"
		}
		f.notes.add(f.path, h.n, fixEOL, "the file's lines end in %s, the hunk's do not: lines were compared without CR, and added lines given the file's line end", style)
	}
	if m.noNewline && len(out) > 0 && out[len(out)-1].nl {
		out[len(out)-1].nl = false
		f.notes.add(f.path, h.n, fixNoNewline, "the file has no final newline and the hunk does not say \"\\ No newline at end of file\"; the file still ends without one")
	}
	return out
}

// crlf says whether the base file's lines end in CRLF (its first one
// does).
func (f *fileHunks) crlf() bool {
	for _, l := range f.base {
		if l.nl {
			return strings.HasSuffix(l.text, "\r")
		}
	}
	return false
}

// ambiguous refuses a hunk that matches several places.
func (f *fileHunks) ambiguous(h *hunk, found []match, mode matchMode) error {
	at := make([]int, len(found))
	for i, m := range found {
		at[i] = m.pos
	}
	how := ""
	switch mode {
	case matchCR:
		how = " (ignoring CR at line ends)"
	case matchSpace:
		how = " (ignoring trailing whitespace in context lines)"
	}
	return server.Errorf(server.InvalidInput, "%s matches %d places%s, at lines %s; nothing was applied", h.name(), len(found), how, joinInts(plusOne(at, 10))).
		WithHint("add context lines (or an @@ anchor line) so that the hunk matches one place")
}

// unmatched refuses a hunk that matches nowhere. It names where the hunk
// would match before lo (hunks out of order), or else the place where most
// of its old lines agree with the file and the first line there that does
// not, and how.
func (f *fileHunks) unmatched(h *hunk, lo int) error {
	msg := fmt.Sprintf("%s: its context and removed lines match nowhere in the file", h.name())
	if lo > 0 {
		for pos := 0; pos < lo && pos+len(h.old) <= len(f.base); pos++ {
			if _, ok := f.matchAt(h, pos, matchSpace); ok {
				return server.Errorf(server.InvalidInput, "%s: its lines are at line %d, before line %d where the search for it starts (the end of the hunk before it, or its @@ anchor); hunks must come in file order and must not overlap",
					h.name(), pos+1, lo+1)
			}
		}
		msg += fmt.Sprintf(" from line %d on (after the hunk before it, or at its @@ anchor)", lo+1)
	}
	if len(h.old) > len(f.base)-lo {
		return server.Errorf(server.InvalidInput, "%s; the hunk has %d old lines, the file %d", msg, len(h.old), len(f.base)-lo)
	}
	best, bestN := -1, 0
	for pos := lo; pos+len(h.old) <= len(f.base); pos++ {
		n := 0
		for k, want := range h.old {
			if sameText(f.base[pos+k].text, want.text, matchSpace, h.isContext(k)) {
				n++
			}
		}
		if n > bestN {
			best, bestN = pos, n
		}
	}
	if best < 0 {
		return server.Errorf(server.InvalidInput, "%s, nor does any single line of them", msg).
			WithHint("read the file again at the base revision and make the hunk from it")
	}
	for k := range h.old {
		if !f.agrees(h, best, k) {
			return server.Errorf(server.InvalidInput, "%s; the closest match is at line %d (%d of %d lines agree): %s",
				msg, best+1, bestN, len(h.old), f.difference(h, best+k, k)).
				WithHint("read the file again at the base revision and make the hunk from it")
		}
	}
	return server.Errorf(server.InvalidInput, "%s; the closest match is at line %d", msg, best+1)
}

// agrees says whether old line k of h agrees with the base at pos+k, as
// leniently as any search compares it.
func (f *fileHunks) agrees(h *hunk, pos, k int) bool {
	got, want := f.base[pos+k], h.old[k]
	if !sameText(got.text, want.text, matchSpace, h.isContext(k)) {
		return false
	}
	return got.nl == want.nl || !got.nl && pos+k == len(f.base)-1
}

// difference says how base line i differs from old line k of h.
func (f *fileHunks) difference(h *hunk, i, k int) string {
	got, want := f.base[i], h.old[k]
	switch {
	case sameText(got.text, want.text, matchCR, false) && got.nl:
		return fmt.Sprintf("line %d of the file ends in a newline; the hunk says it does not (\\ No newline at end of file)", i+1)
	case sameText(got.text, want.text, matchCR, false):
		return fmt.Sprintf("line %d of the file has no newline and is not its last line", i+1)
	case sameText(got.text, want.text, matchSpace, true):
		return fmt.Sprintf("line %d of the file is %q; the hunk removes %q (removed lines must match exactly, trailing whitespace included)",
			i+1, truncate(got.text, 200), truncate(want.text, 200))
	}
	return fmt.Sprintf("line %d of the file is %q, the hunk expects %q", i+1, truncate(got.text, 200), truncate(want.text, 200))
}

// plusOne turns base indexes into 1-based line numbers, at most n of them.
func plusOne(idx []int, n int) []int {
	out := make([]int, 0, min(len(idx), n))
	for _, i := range idx[:min(len(idx), n)] {
		out = append(out, i+1)
	}
	return out
}
