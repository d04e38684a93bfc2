package patch

import (
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
)

// The envelope is the patch format many coding agents write instead of a
// unified diff:
//
//	*** Begin Patch
//	*** Add File: path          then the new file's lines, each starting with +
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: path           optional, right after Update File
//	@@ anchor                   optional: a line of the file the chunk follows
//	 context / -removed / +added lines
//	*** End of File             optional: the chunk ends the file
//	*** End Patch
//
// An Update File holds one or more chunks; each starts with "@@" (with or
// without an anchor line), except that the first may start directly with
// its lines. Consecutive anchors narrow the search one after the other.
// Chunks carry no line numbers: they are located like a diff's hunks whose
// header states none (locate.go), in order.

const (
	envBegin  = "*** Begin Patch"
	envEnd    = "*** End Patch"
	envAdd    = "*** Add File: "
	envDelete = "*** Delete File: "
	envUpdate = "*** Update File: "
	envMove   = "*** Move to: "
	envEOF    = "*** End of File"
)

// isEnvelope says whether text's first non-blank line begins an envelope.
func isEnvelope(text string) bool {
	for l := range strings.Lines(text) {
		if t := strings.TrimSpace(l); t != "" {
			return t == envBegin
		}
	}
	return false
}

// envParser walks the lines of an envelope.
type envParser struct {
	lines []string
	i     int
}

// parseEnvelope reads an envelope into file edits.
func parseEnvelope(text string) ([]*fileEdit, error) {
	lines := strings.Split(strings.TrimRight(text, " \t\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if strings.TrimSpace(lines[len(lines)-1]) != envEnd {
		return nil, server.Errorf(server.InvalidInput, "the patch does not end with %q: it may have been cut off; nothing was applied", envEnd)
	}
	p := &envParser{lines: lines[:len(lines)-1], i: 1}
	var out []*fileEdit
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		var fe *fileEdit
		var err error
		switch {
		case strings.TrimSpace(l) == "":
			p.i++
			continue
		case strings.HasPrefix(l, envAdd):
			fe, err = p.add(strings.TrimSpace(l[len(envAdd):]))
		case strings.HasPrefix(l, envDelete):
			fe = &fileEdit{label: "Delete File " + strings.TrimSpace(l[len(envDelete):]), from: strings.TrimSpace(l[len(envDelete):]), delete: true}
			p.i++
		case strings.HasPrefix(l, envUpdate):
			fe, err = p.update(strings.TrimSpace(l[len(envUpdate):]))
		default:
			return nil, p.errorf("expected *** Add File:, *** Delete File: or *** Update File:, not %q", truncate(l, 80))
		}
		if err != nil {
			return nil, err
		}
		if fe.from == "" && fe.to == "" {
			return nil, server.Errorf(server.InvalidInput, "%s: the path is empty", fe.label)
		}
		out = append(out, fe)
	}
	if len(out) == 0 {
		return nil, server.Errorf(server.InvalidInput, "the patch names no file")
	}
	return out, nil
}

func (p *envParser) errorf(format string, args ...any) *server.Error {
	return server.Errorf(server.InvalidInput, "line %d of the patch: %s", p.i+1, fmt.Sprintf(format, args...))
}

// atHeader says whether line i is one of the envelope's *** lines other
// than End of File.
func (p *envParser) atHeader(i int) bool {
	return strings.HasPrefix(p.lines[i], "*** ") && p.lines[i] != envEOF
}

// add reads an Add File section: every line starts with +.
func (p *envParser) add(path string) (*fileEdit, error) {
	fe := &fileEdit{label: "Add File " + path, to: path}
	h := &hunk{n: 1, header: "*** Add File", statedOld: -1, statedNew: -1}
	p.i++
	end := p.i
	for end < len(p.lines) && !p.atHeader(end) {
		end++
	}
	body := trimBlankTail(p.lines[p.i:end])
	for _, l := range body {
		if !strings.HasPrefix(l, "+") {
			return nil, p.errorf("%s: every line of a new file starts with +, not %q", fe.label, truncate(l, 80))
		}
		h.addNew(line{text: l[1:], nl: true})
		p.i++
	}
	p.i = end
	if len(h.new) > 0 {
		fe.hunks = []*hunk{h}
	}
	return fe, nil
}

// update reads an Update File section: an optional Move to, then chunks.
func (p *envParser) update(path string) (*fileEdit, error) {
	fe := &fileEdit{label: "Update File " + path, from: path, to: path}
	p.i++
	if p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], envMove) {
		fe.to = strings.TrimSpace(p.lines[p.i][len(envMove):])
		fe.label += " (moved to " + fe.to + ")"
		p.i++
	}
	var anchors []string
	for p.i < len(p.lines) && !p.atHeader(p.i) {
		l := p.lines[p.i]
		if rest, ok := strings.CutPrefix(l, "@@"); ok {
			if a := strings.TrimSpace(rest); a != "" {
				anchors = append(anchors, a)
			}
			p.i++
			continue
		}
		if strings.TrimSpace(l) == "" && len(anchors) == 0 && p.chunkEnds(p.i) {
			p.i++ // a blank line between chunks
			continue
		}
		h, err := p.chunk(len(fe.hunks)+1, anchors)
		if err != nil {
			return nil, fe.wrap(err)
		}
		fe.hunks, anchors = append(fe.hunks, h), nil
	}
	if len(anchors) > 0 {
		return nil, p.errorf("%s: the anchor %q has no lines after it", fe.label, truncate(anchors[len(anchors)-1], 80))
	}
	if len(fe.hunks) == 0 && fe.to == fe.from {
		return nil, p.errorf("%s changes nothing: it has no chunk", fe.label)
	}
	return fe, nil
}

// chunkEnds says whether only blank lines stand between line i and the
// next chunk, section or the end.
func (p *envParser) chunkEnds(i int) bool {
	for ; i < len(p.lines); i++ {
		l := p.lines[i]
		switch {
		case strings.HasPrefix(l, "@@") || p.atHeader(i):
			return true
		case strings.TrimSpace(l) != "":
			return false
		}
	}
	return true
}

// chunk reads one chunk's lines, up to the next @@, *** line or the end.
func (p *envParser) chunk(n int, anchors []string) (*hunk, error) {
	header := "@@"
	if len(anchors) > 0 {
		header = "@@ " + strings.Join(anchors, " @@ ")
	}
	h := &hunk{n: n, header: header, statedOld: -1, statedNew: -1, anchors: anchors}
	end := p.i
	for end < len(p.lines) && !strings.HasPrefix(p.lines[end], "@@") && !strings.HasPrefix(p.lines[end], "*** ") {
		end++
	}
	body := trimBlankTail(p.lines[p.i:end])
	for k, raw := range body {
		if !h.addBodyLine(raw) {
			p.i += k
			return nil, p.errorf("%s: %q starts with neither ' ', '-' nor '+'", h.name(), truncate(raw, 80))
		}
	}
	p.i = end
	if end < len(p.lines) && p.lines[end] == envEOF {
		h.atEOF = true
		p.i++
	}
	if len(h.old) == 0 && len(h.new) == 0 {
		return nil, p.errorf("%s has no lines", h.name())
	}
	return h, nil
}

func trimBlankTail(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
