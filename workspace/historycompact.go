package workspace

// Hunk placement, as git's xdl_change_compact places it with the indent
// heuristic (git's default since 2.14). A run of changed lines can often
// slide up or down among equal lines without changing the diff's size;
// git slides it to line up with a change on the other side when it can,
// and otherwise to where its edges fall between blocks of code rather
// than inside them. Line counts do not depend on it; patch hunks and
// blame do, so it is git's placement that is copied here.

const (
	maxIndent                       = 200
	maxBlanks                       = 20
	startOfFilePenalty              = 1
	endOfFilePenalty                = 21
	totalBlankWeight                = -30
	postBlankWeight                 = 6
	relativeIndentPenalty           = -4
	relativeIndentWithBlankPenalty  = 10
	relativeOutdentPenalty          = 24
	relativeOutdentWithBlankPenalty = 17
	relativeDedentPenalty           = 23
	relativeDedentWithBlankPenalty  = 17
	indentWeight                    = 60
	indentHeuristicMaxSliding       = 100
)

// side is one file of a diff as compaction sees it: its lines, their ids
// and which are changed.
type side struct {
	lines [][]byte
	ids   []int32
	chg   []bool
}

func (s *side) changed(i int) bool { return i >= 0 && i < len(s.chg) && s.chg[i] }

// group is a run [start, end) of changed lines, possibly empty.
type group struct{ start, end int }

func (s *side) groupInit() group {
	g := group{}
	for s.changed(g.end) {
		g.end++
	}
	return g
}

func (s *side) groupNext(g *group) bool {
	if g.end == len(s.chg) {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for s.changed(g.end) {
		g.end++
	}
	return true
}

func (s *side) groupPrevious(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for s.changed(g.start - 1) {
		g.start--
	}
	return true
}

func (s *side) slideDown(g *group) bool {
	if g.end < len(s.chg) && s.ids[g.start] == s.ids[g.end] {
		s.chg[g.start], s.chg[g.end] = false, true
		g.start, g.end = g.start+1, g.end+1
		for s.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func (s *side) slideUp(g *group) bool {
	if g.start > 0 && s.ids[g.start-1] == s.ids[g.end-1] {
		g.start, g.end = g.start-1, g.end-1
		s.chg[g.start], s.chg[g.end] = true, false
		for s.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

// compact slides the groups of changed lines of one side (lines, ids,
// chg) against the other side's (oids, ochg).
func compact(lines [][]byte, ids []int32, chg []bool, oids []int32, ochg []bool) {
	x := &side{lines: lines, ids: ids, chg: chg}
	o := &side{ids: oids, chg: ochg}
	g, gOther := x.groupInit(), o.groupInit()
	for {
		if g.end != g.start {
			x.compactGroup(o, &g, &gOther)
		}
		if !x.groupNext(&g) {
			return
		}
		o.groupNext(&gOther)
	}
}

func (x *side) compactGroup(o *side, g, gOther *group) {
	var earliestEnd, endMatchingOther, groupSize int
	for {
		groupSize = g.end - g.start
		endMatchingOther = -1
		for x.slideUp(g) {
			o.groupPrevious(gOther)
		}
		earliestEnd = g.end
		if gOther.end > gOther.start {
			endMatchingOther = g.end
		}
		for x.slideDown(g) {
			o.groupNext(gOther)
			if gOther.end > gOther.start {
				endMatchingOther = g.end
			}
		}
		if groupSize == g.end-g.start {
			break
		}
	}
	switch {
	case g.end == earliestEnd:
	case endMatchingOther != -1:
		for gOther.end == gOther.start {
			x.slideUp(g)
			o.groupPrevious(gOther)
		}
	default:
		shift := max(earliestEnd, g.end-groupSize-1, g.end-indentHeuristicMaxSliding)
		bestShift := -1
		var best splitScore
		for ; shift <= g.end; shift++ {
			var sc splitScore
			sc.add(x.measure(shift))
			sc.add(x.measure(shift - groupSize))
			if bestShift == -1 || sc.cmp(best) <= 0 {
				best, bestShift = sc, shift
			}
		}
		for g.end > bestShift {
			x.slideUp(g)
			o.groupPrevious(gOther)
		}
	}
}

// indent is a line's indentation width (tabs to multiples of 8), or -1
// for a line of whitespace only.
func indent(line []byte) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		case '\n', '\r', '\v', '\f':
		default:
			return n
		}
		if n >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

type splitMeasurement struct {
	endOfFile                                          bool
	indent, preBlank, preIndent, postBlank, postIndent int
}

func (x *side) measure(split int) splitMeasurement {
	var m splitMeasurement
	if split >= len(x.lines) {
		m.endOfFile, m.indent = true, -1
	} else {
		m.indent = indent(x.lines[split])
	}
	m.preIndent = -1
	for i := split - 1; i >= 0; i-- {
		if m.preIndent = indent(x.lines[i]); m.preIndent != -1 {
			break
		}
		if m.preBlank++; m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postIndent = -1
	for i := split + 1; i < len(x.lines); i++ {
		if m.postIndent = indent(x.lines[i]); m.postIndent != -1 {
			break
		}
		if m.postBlank++; m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

type splitScore struct{ effectiveIndent, penalty int }

func (s *splitScore) add(m splitMeasurement) {
	if m.preIndent == -1 && m.preBlank == 0 {
		s.penalty += startOfFilePenalty
	}
	if m.endOfFile {
		s.penalty += endOfFilePenalty
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	s.penalty += totalBlankWeight*totalBlank + postBlankWeight*postBlank
	ind := m.indent
	if ind == -1 {
		ind = m.postIndent
	}
	anyBlanks := totalBlank != 0
	s.effectiveIndent += ind
	switch {
	case ind == -1, m.preIndent == -1, ind == m.preIndent:
	case ind > m.preIndent:
		s.penalty += pick(anyBlanks, relativeIndentWithBlankPenalty, relativeIndentPenalty)
	case m.postIndent != -1 && m.postIndent > ind:
		s.penalty += pick(anyBlanks, relativeOutdentWithBlankPenalty, relativeOutdentPenalty)
	default:
		s.penalty += pick(anyBlanks, relativeDedentWithBlankPenalty, relativeDedentPenalty)
	}
}

func pick(cond bool, a, b int) int {
	if cond {
		return a
	}
	return b
}

func (s splitScore) cmp(o splitScore) int {
	c := 0
	switch {
	case s.effectiveIndent > o.effectiveIndent:
		c = 1
	case s.effectiveIndent < o.effectiveIndent:
		c = -1
	}
	return indentWeight*c + s.penalty - o.penalty
}
