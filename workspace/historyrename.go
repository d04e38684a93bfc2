package workspace

import (
	"path"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Rename detection follows git's diffcore-rename with its defaults (-M50%,
// diff.renameLimit 1000): exact renames by blob first, preferring a source
// with the same base name; then pairs of files with a unique base name on
// both sides that are at least 75% similar; then the best-scoring of the
// remaining pairs at or above 50%, each source used once. Similarity is
// git's diffcore-delta score: the share of the larger file's bytes, cut in
// chunks at newlines or every 64 bytes, that the other file has too.
const (
	maxScore        = 60000 // git's MAX_SCORE
	minRenameScore  = maxScore / 2
	basenameScore   = minRenameScore + (maxScore-minRenameScore)/2
	renameLimit     = 1000
	candidatesPerDs = 4
	// maxRenameBlob is the largest file compared for similarity; a larger
	// one is renamed only when exactly equal.
	maxRenameBlob = 16 << 20
)

// pairRenamesLocked replaces deletions and additions that git would call
// renames by rename changes, in place of the addition. r.mu must be held.
func (r *repo) pairRenamesLocked(changes []rawChange) ([]rawChange, error) {
	var srcs, dsts []int
	for i, c := range changes {
		switch {
		case c.to.path == "":
			srcs = append(srcs, i)
		case c.from.path == "":
			dsts = append(dsts, i)
		}
	}
	if len(srcs) == 0 || len(dsts) == 0 {
		return changes, nil
	}
	rn := &renamer{r: r, changes: changes, srcOf: make(map[int]int), score: make(map[int]int), used: make(map[int]bool), sig: make(map[plumbing.Hash]*spanCounts), diskSize: make(map[plumbing.Hash]int64)}
	rn.exact(srcs, dsts)
	srcs, dsts = rn.unusedSrcs(srcs), rn.unpaired(dsts)
	if err := rn.byBasename(srcs, dsts); err != nil {
		return nil, err
	}
	srcs, dsts = rn.unusedSrcs(srcs), rn.unpaired(dsts)
	if len(srcs)*len(dsts) <= renameLimit*renameLimit {
		if err := rn.inexact(srcs, dsts); err != nil {
			return nil, err
		}
	}
	return rn.result(), nil
}

type renamer struct {
	r       *repo
	changes []rawChange
	srcOf   map[int]int // dst index -> src index
	score   map[int]int // dst index -> score
	used    map[int]bool
	sig     map[plumbing.Hash]*spanCounts
	// diskSize is the size of working tree sides read, by hash.
	diskSize map[plumbing.Hash]int64
}

func (rn *renamer) pair(src, dst, score int) {
	rn.srcOf[dst], rn.score[dst], rn.used[src] = src, score, true
}

func (rn *renamer) unusedSrcs(srcs []int) []int {
	return slices.DeleteFunc(slices.Clone(srcs), func(i int) bool { return rn.used[i] })
}

func (rn *renamer) unpaired(dsts []int) []int {
	return slices.DeleteFunc(slices.Clone(dsts), func(i int) bool { _, ok := rn.srcOf[i]; return ok })
}

// exact pairs additions with deletions of the same blob. A symlink and a
// regular file are never paired.
func (rn *renamer) exact(srcs, dsts []int) {
	byHash := make(map[plumbing.Hash][]int)
	for _, s := range srcs {
		h := rn.changes[s].from.hash
		byHash[h] = append(byHash[h], s)
	}
	for _, d := range dsts {
		to := rn.changes[d].to
		best := -1
		for _, s := range byHash[to.hash] {
			from := rn.changes[s].from
			if rn.used[s] || isRegular(from.mode) != isRegular(to.mode) {
				continue
			}
			if best < 0 {
				best = s
			}
			if path.Base(from.path) == path.Base(to.path) {
				best = s
				break
			}
		}
		if best >= 0 {
			rn.pair(best, d, maxScore)
		}
	}
}

// byBasename pairs files whose base name occurs once among the remaining
// sources and once among the remaining destinations, when similar enough.
func (rn *renamer) byBasename(srcs, dsts []int) error {
	count := func(idx []int, side func(rawChange) fileSide) map[string]int {
		m := make(map[string]int)
		for _, i := range idx {
			m[path.Base(side(rn.changes[i]).path)]++
		}
		return m
	}
	from := func(c rawChange) fileSide { return c.from }
	to := func(c rawChange) fileSide { return c.to }
	srcNames, dstNames := count(srcs, from), count(dsts, to)
	srcByName := make(map[string]int)
	for _, s := range srcs {
		srcByName[path.Base(rn.changes[s].from.path)] = s
	}
	for _, d := range dsts {
		name := path.Base(rn.changes[d].to.path)
		if srcNames[name] != 1 || dstNames[name] != 1 {
			continue
		}
		s := srcByName[name]
		score, err := rn.similarity(s, d, basenameScore)
		if err != nil {
			return err
		}
		if score >= basenameScore {
			rn.pair(s, d, score)
		}
	}
	return nil
}

type candidate struct{ src, dst, score, nameScore int }

// inexact scores every remaining pair, keeps the best few per destination,
// and assigns the best overall first.
func (rn *renamer) inexact(srcs, dsts []int) error {
	var all []candidate
	for _, d := range dsts {
		var best []candidate
		for _, s := range srcs {
			score, err := rn.similarity(s, d, minRenameScore)
			if err != nil {
				return err
			}
			if score < minRenameScore {
				continue
			}
			c := candidate{src: s, dst: d, score: score}
			if path.Base(rn.changes[s].from.path) == path.Base(rn.changes[d].to.path) {
				c.nameScore = 1
			}
			best = recordIfBetter(best, c)
		}
		all = append(all, best...)
	}
	slices.SortStableFunc(all, func(a, b candidate) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return b.nameScore - a.nameScore
	})
	for _, c := range all {
		if _, paired := rn.srcOf[c.dst]; paired || rn.used[c.src] {
			continue
		}
		rn.pair(c.src, c.dst, c.score)
	}
	return nil
}

// recordIfBetter keeps at most candidatesPerDs candidates, replacing the
// worst when a better one comes, as git's record_if_better does.
func recordIfBetter(best []candidate, c candidate) []candidate {
	if len(best) < candidatesPerDs {
		return append(best, c)
	}
	worst := 0
	for i := range best {
		if better(best[worst], best[i]) {
			worst = i
		}
	}
	if better(c, best[worst]) {
		best[worst] = c
	}
	return best
}

func better(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.nameScore > b.nameScore
}

// similarity is git's estimate_similarity: 0 for anything but two regular
// files, or when their sizes differ too much to reach min.
func (rn *renamer) similarity(s, d, min int) (int, error) {
	from, to := rn.changes[s].from, rn.changes[d].to
	if !isRegular(from.mode) || !isRegular(to.mode) {
		return 0, nil
	}
	ss, err := rn.size(from)
	if err != nil {
		return 0, err
	}
	ds, err := rn.size(to)
	if err != nil {
		return 0, err
	}
	maxSize, baseSize := max(ss, ds), minInt64(ss, ds)
	if maxSize > maxRenameBlob || maxSize*int64(maxScore-min) < (maxSize-baseSize)*maxScore {
		return 0, nil
	}
	if maxSize == 0 {
		return 0, nil
	}
	sa, err := rn.spans(from)
	if err != nil {
		return 0, err
	}
	sb, err := rn.spans(to)
	if err != nil {
		return 0, err
	}
	return int(sa.copiedTo(sb) * maxScore / maxSize), nil
}

func minInt64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// size is a side's size: its blob's, or for a file of the working tree
// (whose content need not be in the object store) what is on disk.
func (rn *renamer) size(s fileSide) (int64, error) {
	if s.disk == nil {
		return rn.r.blobSizeLocked(s.hash)
	}
	if _, err := rn.spans(s); err != nil {
		return 0, err
	}
	return rn.diskSize[s.hash], nil
}

// spans is a side's fingerprint, by its object id (which a working tree
// side has too: the hash of what is on disk).
func (rn *renamer) spans(s fileSide) (*spanCounts, error) {
	if sc, ok := rn.sig[s.hash]; ok {
		return sc, nil
	}
	var data []byte
	var err error
	if s.disk != nil {
		data, err = readDisk(s.disk, s.path, s.mode == filemode.Symlink)
		rn.diskSize[s.hash] = int64(len(data))
	} else {
		data, _, err = rn.r.readBlobLocked(s.hash, 0, maxRenameBlob)
	}
	if err != nil {
		return nil, err
	}
	sc := countSpans(data)
	rn.sig[s.hash] = sc
	return sc, nil
}

// result is the change list with renames in place of their additions and
// without their deletions.
func (rn *renamer) result() []rawChange {
	out := make([]rawChange, 0, len(rn.changes)-len(rn.srcOf))
	for i, c := range rn.changes {
		if rn.used[i] {
			continue
		}
		if s, ok := rn.srcOf[i]; ok {
			c.from = rn.changes[s].from
			c.similarity = rn.score[i] * 100 / maxScore
		}
		out = append(out, c)
	}
	return out
}

func isRegular(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

// spanCounts is diffcore-delta's fingerprint of a file: bytes per chunk
// hash.
type spanCounts map[uint32]int64

// hashBase is diffcore-delta's HASHBASE.
const hashBase = 107927

// countSpans cuts data into chunks ending at a newline or after 64 bytes
// and sums the bytes of each chunk hash. In text, the CR of a CRLF is not
// counted.
func countSpans(data []byte) *spanCounts {
	sc := make(spanCounts)
	text := !isBinary(data)
	var acc1, acc2 uint32
	n := 0
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		if text && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		old1 := acc1
		acc1 = acc1<<7 ^ acc2>>25
		acc2 = acc2<<7 ^ old1>>25
		acc1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		sc[(acc1+acc2*0x61)%hashBase] += int64(n)
		n, acc1, acc2 = 0, 0, 0
	}
	if n > 0 {
		sc[(acc1+acc2*0x61)%hashBase] += int64(n)
	}
	return &sc
}

// copiedTo returns how many bytes of s are found in d.
func (s *spanCounts) copiedTo(d *spanCounts) int64 {
	var copied int64
	for h, n := range *s {
		copied += min(n, (*d)[h])
	}
	return copied
}
