package workspace

import (
	"bytes"
	"math"
	"strconv"
)

// Line diffs for history: which lines of two texts changed, counted and
// rendered the way git does. The algorithm is git's own (xdiff): lines
// with no counterpart on the other side are marked changed at once, and
// Myers' divide-and-conquer search for the middle snake compares the rest;
// past a cost bound the search takes the furthest-reaching diagonal, as
// xdiff does, so a diff of two unrelated large texts costs
// O((N+M)·sqrt(N+M)) rather than O((N+M)·D).

// binarySniff is how much of a file decides whether it is binary: git's
// rule, a NUL byte in the first 8000 bytes.
const binarySniff = 8000

// isBinary reports whether git would treat data as binary.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// splitLines cuts data into lines, each with its "\n" except perhaps the
// last.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i+1])
		data = data[i+1:]
	}
	return lines
}

// lineDiff is the result of comparing two line sequences: which lines of
// each side are changed (deleted from a, added in b).
type lineDiff struct {
	a, b       [][]byte
	delA, addB []bool
}

// counts returns the number of lines added and removed.
func (d *lineDiff) counts() (added, removed int) {
	for _, c := range d.addB {
		if c {
			added++
		}
	}
	for _, c := range d.delA {
		if c {
			removed++
		}
	}
	return added, removed
}

// diffLines compares two texts by lines.
func diffLines(a, b []byte) *lineDiff { return diffLinesBy(a, b, true) }

// diffLinesBy compares two texts by lines, ignoring all whitespace in
// them unless whitespace is true (git's --ignore-all-space).
func diffLinesBy(a, b []byte, whitespace bool) *lineDiff {
	d := &lineDiff{a: splitLines(a), b: splitLines(b)}
	d.delA, d.addB = make([]bool, len(d.a)), make([]bool, len(d.b))
	ids := make(map[string]int32, len(d.a)+len(d.b))
	key := func(l []byte) string { return string(l) }
	if !whitespace {
		key = withoutSpace
	}
	ha, hb := intern(ids, d.a, key), intern(ids, d.b, key)
	// Occurrences of each line on each side, over the whole files.
	nA, nB := make([]int, len(ids)), make([]int, len(ids))
	for _, h := range ha {
		nA[h]++
	}
	for _, h := range hb {
		nB[h]++
	}
	// xdl_trim_ends: the common head and tail take no part in the search.
	start := 0
	for start < len(ha) && start < len(hb) && ha[start] == hb[start] {
		start++
	}
	endA, endB := len(ha), len(hb)
	for endA > start && endB > start && ha[endA-1] == hb[endB-1] {
		endA, endB = endA-1, endB-1
	}
	ra, ia := discard(ha, start, endA, nB, d.delA)
	rb, ib := discard(hb, start, endB, nA, d.addB)
	m := &myers{a: ra, b: rb, chgA: make([]bool, len(ra)), chgB: make([]bool, len(rb))}
	n := len(ra) + len(rb) + 3
	m.kvdf, m.kvdb = make([]int, n), make([]int, n)
	m.base = len(rb) + 1
	m.maxCost = max(xdlMaxCostMin, bogoSqrt(n))
	m.compare(0, len(ra), 0, len(rb), false)
	for i, c := range m.chgA {
		if c {
			d.delA[ia[i]] = true
		}
	}
	for i, c := range m.chgB {
		if c {
			d.addB[ib[i]] = true
		}
	}
	compact(d.a, ha, d.delA, hb, d.addB)
	compact(d.b, hb, d.addB, ha, d.delA)
	return d
}

// xdiff's tuning constants.
const (
	xdlMaxCostMin    = 256
	xdlMaxEqLimit    = 1024
	xdlSimscanWindow = 100
	xdlKpdisRun      = 4
	xdlSnakeCnt      = 20
	xdlHeurMinCost   = 256
	xdlKHeur         = 4
)

// bogoSqrt is xdl_bogosqrt: a power of two near the square root.
func bogoSqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

func intern(ids map[string]int32, lines [][]byte, key func([]byte) string) []int32 {
	out := make([]int32, len(lines))
	for i, l := range lines {
		k := key(l)
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
		}
		out[i] = id
	}
	return out
}

// discard is xdl_cleanup_records for one side: of the lines h[start:end],
// those with no counterpart on the other side are changed whatever the
// alignment, and so are lines with very many counterparts that sit among
// such lines. It returns the lines left for the search, with their
// indexes, and marks the others changed.
func discard(h []int32, start, end int, other []int, changed []bool) ([]int32, []int) {
	mlim := min(bogoSqrt(len(h)), xdlMaxEqLimit)
	dis := make([]byte, end-start)
	for i := start; i < end; i++ {
		switch nm := other[h[i]]; {
		case nm == 0:
			dis[i-start] = 0
		case nm >= mlim:
			dis[i-start] = 2
		default:
			dis[i-start] = 1
		}
	}
	kept, idx := make([]int32, 0, end-start), make([]int, 0, end-start)
	for i := start; i < end; i++ {
		k := i - start
		if dis[k] == 1 || dis[k] == 2 && !cleanMatch(dis, k) {
			kept, idx = append(kept, h[i]), append(idx, i)
		} else {
			changed[i] = true
		}
	}
	return kept, idx
}

// cleanMatch is xdl_clean_mmatch: whether a line with many matches (dis
// 2) lies within a run of unmatched lines, and is better discarded too.
func cleanMatch(dis []byte, i int) bool {
	s, e := 0, len(dis)-1
	if i-s > xdlSimscanWindow {
		s = i - xdlSimscanWindow
	}
	if e-i > xdlSimscanWindow {
		e = i + xdlSimscanWindow
	}
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			rdis0++
		} else if dis[i-r] == 2 {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			rdis1++
		} else if dis[i+r] == 2 {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*xdlKpdisRun < rpdis1+rdis1
}

// myers is xdiff's xdl_recs_cmp and xdl_split over interned lines.
type myers struct {
	a, b       []int32
	chgA, chgB []bool
	kvdf, kvdb []int // furthest x on each diagonal, indexed by k+base
	base       int
	maxCost    int
}

func (m *myers) compare(off1, lim1, off2, lim2 int, needMin bool) {
	for off1 < lim1 && off2 < lim2 && m.a[off1] == m.b[off2] {
		off1, off2 = off1+1, off2+1
	}
	for off1 < lim1 && off2 < lim2 && m.a[lim1-1] == m.b[lim2-1] {
		lim1, lim2 = lim1-1, lim2-1
	}
	switch {
	case off1 == lim1:
		for i := off2; i < lim2; i++ {
			m.chgB[i] = true
		}
	case off2 == lim2:
		for i := off1; i < lim1; i++ {
			m.chgA[i] = true
		}
	default:
		sp := m.split(off1, lim1, off2, lim2, needMin)
		m.compare(off1, sp.i1, off2, sp.i2, sp.minLo)
		m.compare(sp.i1, lim1, sp.i2, lim2, sp.minHi)
	}
}

// splitPoint is where split cuts a box, and whether each half must then
// be solved exactly.
type splitPoint struct {
	i1, i2       int
	minLo, minHi bool
}

// split finds where to cut the box (off1,off2)-(lim1,lim2): the middle
// snake of a shortest edit script or, unless needMin, one of xdiff's
// heuristic cuts once the search grows costly.
func (m *myers) split(off1, lim1, off2, lim2 int, needMin bool) splitPoint {
	kf, kb, base := m.kvdf, m.kvdb, m.base
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	kf[fmid+base], kb[bmid+base] = off1, lim1
	for ec := 1; ; ec++ {
		gotSnake := false
		if fmin > dmin {
			fmin--
			kf[fmin-1+base] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kf[fmax+1+base] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if kf[d-1+base] >= kf[d+1+base] {
				i1 = kf[d-1+base] + 1
			} else {
				i1 = kf[d+1+base]
			}
			prev := i1
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && m.a[i1] == m.b[i2] {
				i1, i2 = i1+1, i2+1
			}
			if i1-prev > xdlSnakeCnt {
				gotSnake = true
			}
			kf[d+base] = i1
			if odd && bmin <= d && d <= bmax && kb[d+base] <= i1 {
				return splitPoint{i1, i2, true, true}
			}
		}
		if bmin > dmin {
			bmin--
			kb[bmin-1+base] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kb[bmax+1+base] = math.MaxInt
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if kb[d-1+base] < kb[d+1+base] {
				i1 = kb[d-1+base]
			} else {
				i1 = kb[d+1+base] - 1
			}
			prev := i1
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && m.a[i1-1] == m.b[i2-1] {
				i1, i2 = i1-1, i2-1
			}
			if prev-i1 > xdlSnakeCnt {
				gotSnake = true
			}
			kb[d+base] = i1
			if !odd && fmin <= d && d <= fmax && i1 <= kf[d+base] {
				return splitPoint{i1, i2, true, true}
			}
		}
		if needMin {
			continue
		}
		if gotSnake && ec > xdlHeurMinCost {
			if sp, ok := m.goodSnake(off1, lim1, off2, lim2, fmin, fmax, fmid, bmin, bmax, bmid, ec); ok {
				return sp
			}
		}
		if ec >= m.maxCost {
			i1, i2 := m.furthest(off1, lim1, off2, lim2, fmin, fmax, bmin, bmax)
			return splitPoint{i1: i1, i2: i2}
		}
	}
}

// goodSnake is xdl_split's heuristic: a diagonal far along and close to
// the middle that ends a long snake is a good enough cut.
func (m *myers) goodSnake(off1, lim1, off2, lim2, fmin, fmax, fmid, bmin, bmax, bmid, ec int) (splitPoint, bool) {
	kf, kb, base := m.kvdf, m.kvdb, m.base
	best := 0
	var sp splitPoint
	for d := fmax; d >= fmin; d -= 2 {
		dd := abs(d - fmid)
		i1 := kf[d+base]
		i2 := i1 - d
		v := (i1 - off1) + (i2 - off2) - dd
		if v > xdlKHeur*ec && v > best && off1+xdlSnakeCnt <= i1 && i1 < lim1 && off2+xdlSnakeCnt <= i2 && i2 < lim2 {
			for k := 1; m.a[i1-k] == m.b[i2-k]; k++ {
				if k == xdlSnakeCnt {
					best, sp = v, splitPoint{i1: i1, i2: i2, minLo: true}
					break
				}
			}
		}
	}
	if best > 0 {
		return sp, true
	}
	for d := bmax; d >= bmin; d -= 2 {
		dd := abs(d - bmid)
		i1 := kb[d+base]
		i2 := i1 - d
		v := (lim1 - i1) + (lim2 - i2) - dd
		if v > xdlKHeur*ec && v > best && off1 < i1 && i1 <= lim1-xdlSnakeCnt && off2 < i2 && i2 <= lim2-xdlSnakeCnt {
			for k := 0; m.a[i1+k] == m.b[i2+k]; k++ {
				if k == xdlSnakeCnt-1 {
					best, sp = v, splitPoint{i1: i1, i2: i2, minHi: true}
					break
				}
			}
		}
	}
	return sp, best > 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// furthest is xdl_split's give-up: the point on either frontier that
// covers the most of the box.
func (m *myers) furthest(off1, lim1, off2, lim2, fmin, fmax, bmin, bmax int) (int, int) {
	kf, kb, base := m.kvdf, m.kvdb, m.base
	fbest, fbest1 := -1, -1
	for d := fmax; d >= fmin; d -= 2 {
		i1 := min(kf[d+base], lim1)
		i2 := i1 - d
		if lim2 < i2 {
			i1, i2 = lim2+d, lim2
		}
		if fbest < i1+i2 {
			fbest, fbest1 = i1+i2, i1
		}
	}
	bbest, bbest1 := math.MaxInt, math.MaxInt
	for d := bmax; d >= bmin; d -= 2 {
		i1 := max(off1, kb[d+base])
		i2 := i1 - d
		if i2 < off2 {
			i1, i2 = off2+d, off2
		}
		if i1+i2 < bbest {
			bbest, bbest1 = i1+i2, i1
		}
	}
	if (lim1+lim2)-bbest < fbest-(off1+off2) {
		return fbest1, fbest - fbest1
	}
	return bbest1, bbest - bbest1
}

// hunkGroup is a run of changed lines: a[a1:a2] became b[b1:b2].
type hunkGroup struct{ a1, a2, b1, b2 int }

// groups returns the runs of changes in order.
func (d *lineDiff) groups() []hunkGroup {
	var out []hunkGroup
	i, j := 0, 0
	for i < len(d.a) || j < len(d.b) {
		if (i < len(d.a) && d.delA[i]) || (j < len(d.b) && d.addB[j]) {
			g := hunkGroup{a1: i, b1: j}
			for i < len(d.a) && d.delA[i] {
				i++
			}
			for j < len(d.b) && d.addB[j] {
				j++
			}
			g.a2, g.b2 = i, j
			out = append(out, g)
			continue
		}
		i, j = i+1, j+1
	}
	return out
}

// unified renders the diff as unified hunks with ctx lines of context, in
// git's format: each hunk header ends with the function name rule finds
// (nil: none).
func (d *lineDiff) unified(ctx int, rule funcRule) []byte {
	var w bytes.Buffer
	groups := d.groups()
	fn := funcSearch{rule: rule, prev: -1}
	for len(groups) > 0 {
		n := 1
		for n < len(groups) && groups[n].a1-groups[n-1].a2 <= 2*ctx {
			n++
		}
		d.writeHunk(&w, groups[:n], ctx, &fn)
		groups = groups[n:]
	}
	return w.Bytes()
}

// funcSearch finds hunks' function names as git's xdl_emit_diff does:
// backwards from the line before a hunk (context included) down to where
// the previous hunk's search began; when that finds none, the previous
// hunk's name stands, being the nearest.
type funcSearch struct {
	rule funcRule
	prev int // the line the previous search started from
	name []byte
}

func (f *funcSearch) before(lines [][]byte, start int) []byte {
	if f.rule == nil {
		return nil
	}
	for l := start; l != f.prev && l >= 0 && l < len(lines); l-- {
		if name, ok := f.rule(lines[l]); ok {
			f.name = name
			break
		}
	}
	f.prev = start
	return f.name
}

func (d *lineDiff) writeHunk(w *bytes.Buffer, gs []hunkGroup, ctx int, fn *funcSearch) {
	first, last := gs[0], gs[len(gs)-1]
	a1, b1 := max(first.a1-ctx, 0), max(first.b1-ctx, 0)
	lead := first.a1 - a1
	b1 = first.b1 - lead
	trail := min(ctx, len(d.a)-last.a2)
	a2, b2 := last.a2+trail, last.b2+trail
	w.WriteString("@@ -")
	writeRange(w, a1, a2-a1)
	w.WriteString(" +")
	writeRange(w, b1, b2-b1)
	w.WriteString(" @@")
	if name := fn.before(d.a, a1-1); len(name) > 0 {
		w.WriteByte(' ')
		w.Write(name)
	}
	w.WriteByte('\n')
	i := a1
	for _, g := range gs {
		for ; i < g.a1; i++ {
			writeLine(w, ' ', d.a[i])
		}
		for k := g.a1; k < g.a2; k++ {
			writeLine(w, '-', d.a[k])
		}
		for k := g.b1; k < g.b2; k++ {
			writeLine(w, '+', d.b[k])
		}
		i = g.a2
	}
	for ; i < a2; i++ {
		writeLine(w, ' ', d.a[i])
	}
}

// writeRange writes a hunk range as git does: "start,count", the count
// left out when it is 1, and the start one line back when it is 0.
func writeRange(w *bytes.Buffer, start, count int) {
	switch count {
	case 0:
		w.WriteString(strconv.Itoa(start))
		w.WriteString(",0")
	case 1:
		w.WriteString(strconv.Itoa(start + 1))
	default:
		w.WriteString(strconv.Itoa(start + 1))
		w.WriteByte(',')
		w.WriteString(strconv.Itoa(count))
	}
}

func writeLine(w *bytes.Buffer, prefix byte, line []byte) {
	w.WriteByte(prefix)
	w.Write(line)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		w.WriteString("\n\\ No newline at end of file\n")
	}
}

// withoutSpace is a line's key when whitespace does not count: its bytes
// other than git's whitespace (space, \t, \n, \v, \f, \r).
func withoutSpace(l []byte) string {
	b := make([]byte, 0, len(l))
	for _, c := range l {
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
