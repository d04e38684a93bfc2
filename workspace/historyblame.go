package workspace

import (
	"bytes"
	"container/heap"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// BlameOptions choose the lines of a blame.
type BlameOptions struct {
	// StartLine and EndLine are the 1-based inclusive range of lines to
	// blame; 0 means the first or the last line.
	StartLine, EndLine int
	// IgnoreWhitespace compares lines without their whitespace (git
	// blame -w).
	IgnoreWhitespace bool
}

// BlameHunk is a run of lines of the blamed file last changed by one
// commit.
type BlameHunk struct {
	// StartLine and EndLine are the hunk's lines in the blamed file,
	// 1-based and inclusive.
	StartLine, EndLine int
	// SHA is the commit that last changed the lines.
	SHA string
	// OrigPath and OrigStartLine say where the lines were in that commit.
	OrigPath      string
	OrigStartLine int
	// PreviousSHA and PreviousPath name the file in the first parent of
	// SHA that had it, where digging further starts ("" for a commit that
	// added the file).
	PreviousSHA, PreviousPath string
}

// Blame is the result of blaming a file.
type Blame struct {
	Path       string
	TotalLines int
	Hunks      []BlameHunk
	Commits    map[string]CommitInfo
}

// maxBlameBlob bounds the file blamed and every version of it compared.
const maxBlameBlob = 16 << 20

// Blame attributes each line of a file at the snapshot's commit to the
// commit that last changed it, as git blame does: every commit of the
// file's history is compared with its parents with git's line diff, lines
// a parent already had pass to it, renames of the whole file are followed,
// and a merge passes lines to each parent in turn.
func (s *Snapshot) Blame(ctx context.Context, p string, opts BlameOptions, hideEmails bool) (Blame, error) {
	if s.rev.SHA == WorktreeRevision {
		return Blame{}, errclass.Errorf(errclass.InvalidInput, "blame reads committed history; name a commit, not the working tree")
	}
	e, err := s.Stat(ctx, p)
	if err != nil {
		return Blame{}, err
	}
	if e.Type != TypeFile {
		return Blame{}, errclass.Errorf(errclass.InvalidInput, "blame needs a file; %s is a %s", quoteInput(e.Path), e.Type)
	}
	if e.Size > maxBlameBlob {
		return Blame{}, errclass.Errorf(errclass.InvalidInput, "%s is %d bytes; blame reads files up to %d", quoteInput(e.Path), e.Size, maxBlameBlob)
	}
	r := s.grant.ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	data, _, err := r.readBlobLocked(plumbing.NewHash(e.SHA), 0, maxBlameBlob)
	if err != nil {
		return Blame{}, s.historyError(err)
	}
	if isBinary(data) {
		return Blame{}, errclass.Errorf(errclass.InvalidInput, "%s is a binary file; blame attributes lines of text", quoteInput(e.Path))
	}
	total := len(splitLines(data))
	start, end := max(opts.StartLine, 1), opts.EndLine
	if end == 0 || end > total {
		end = total
	}
	if start > total || start > end {
		return Blame{}, errclass.Errorf(errclass.InvalidInput, "lines %d-%d are past the end of %s (%d lines)", start, opts.EndLine, quoteInput(e.Path), total)
	}
	// A blame depends on the commit, the file's path, the lines, the
	// whitespace rule and the caller (whose policy decides which renames
	// can be followed): all immutable, so it is cached by them.
	key := strings.Join([]string{s.rev.SHA, e.Path, strconv.Itoa(start), strconv.Itoa(end),
		strconv.FormatBool(opts.IgnoreWhitespace), strconv.FormatBool(hideEmails), s.grant.access.Identity, string(s.grant.access.Action)}, "\x00")
	hc := r.historyLocked()
	if cached, ok := hc.blames[key]; ok {
		return cached, nil
	}
	b := &blamer{ctx: ctx, r: r, grant: s.grant, ws: !opts.IgnoreWhitespace, origins: make(map[originKey]*origin)}
	root := b.origin(plumbing.NewHash(s.rev.SHA), e.Path, plumbing.NewHash(e.SHA))
	root.entries = []blameEntry{{final: start - 1, orig: start - 1, n: end - start + 1}}
	if err := b.run(root); err != nil {
		return Blame{}, s.historyError(err)
	}
	out := Blame{Path: e.Path, TotalLines: total, Commits: make(map[string]CommitInfo)}
	out.Hunks = b.hunks()
	for _, h := range out.Hunks {
		if _, ok := out.Commits[h.SHA]; ok {
			continue
		}
		c, err := r.commitObjectLocked(plumbing.NewHash(h.SHA))
		if err != nil {
			return Blame{}, s.historyError(err)
		}
		out.Commits[h.SHA] = infoOf(c, hideEmails)
	}
	if len(hc.blames) >= maxCachedBlames {
		clear(hc.blames)
	}
	hc.blames[key] = out
	return out, nil
}

// blameEntry is a run of n lines of the blamed file (from line final,
// 0-based) that are lines orig.. of the origin holding it.
type blameEntry struct{ final, orig, n int }

type originKey struct {
	commit plumbing.Hash
	path   string
}

// origin is a version of the file in one commit, and the lines whose
// blame it holds.
type origin struct {
	originKey
	blob     plumbing.Hash
	c        *object.Commit
	entries  []blameEntry
	previous *origin
	seq      int
	queued   bool
}

type blamer struct {
	ctx     context.Context
	r       *repo
	grant   *grant
	ws      bool // whitespace counts
	origins map[originKey]*origin
	queue   originQueue
	done    []*origin // origins left holding lines: blamed
	seq     int
}

func (b *blamer) origin(commit plumbing.Hash, p string, blob plumbing.Hash) *origin {
	k := originKey{commit, p}
	if o, ok := b.origins[k]; ok {
		return o
	}
	b.seq++
	o := &origin{originKey: k, blob: blob, seq: b.seq}
	b.origins[k] = o
	return o
}

func (b *blamer) enqueue(o *origin) error {
	if o.queued {
		return nil
	}
	c, err := b.r.commitObjectLocked(o.commit)
	if err != nil {
		return err
	}
	o.c, o.queued = c, true
	heap.Push(&b.queue, o)
	return nil
}

func (b *blamer) run(root *origin) error {
	if err := b.enqueue(root); err != nil {
		return err
	}
	for n := 0; b.queue.Len() > 0; n++ {
		if n%64 == 0 {
			if err := b.ctx.Err(); err != nil {
				return err
			}
		}
		o := heap.Pop(&b.queue).(*origin)
		o.queued = false
		if len(o.entries) == 0 {
			continue
		}
		if err := b.pass(o); err != nil {
			return err
		}
		if len(o.entries) > 0 {
			b.done = append(b.done, o)
		}
	}
	return nil
}

// pass hands o's lines to its parents: all of them to a parent with the
// same blob, else, parent by parent, the lines each parent already had.
func (b *blamer) pass(o *origin) error {
	var parents []*origin
	for _, ph := range o.c.ParentHashes {
		po, err := b.parentOrigin(o, ph)
		if err != nil {
			return err
		}
		if po == nil {
			continue
		}
		if po.blob == o.blob {
			po.entries = mergeEntries(po.entries, o.entries)
			o.entries = nil
			return b.enqueue(po)
		}
		parents = append(parents, po)
	}
	if len(parents) > 0 && o.previous == nil {
		o.previous = parents[0]
	}
	for _, po := range parents {
		if len(o.entries) == 0 {
			break
		}
		moved, err := b.passTo(o, po)
		if err != nil {
			return err
		}
		if moved {
			if err := b.enqueue(po); err != nil {
				return err
			}
		}
	}
	return nil
}

// parentOrigin finds the file of o in parent ph: at the same path, or
// the source of a rename to it; nil when the parent has neither (or the
// caller may not see it).
func (b *blamer) parentOrigin(o *origin, ph plumbing.Hash) (*origin, error) {
	pc, err := b.r.commitObjectLocked(ph)
	if err != nil {
		return nil, err
	}
	if te, ok, err := b.r.lookupLocked(pc.TreeHash, o.path); err != nil || ok {
		if err != nil || !isRegular(te.mode) {
			return nil, err
		}
		return b.origin(ph, o.path, te.hash), nil
	}
	c, err := b.r.commitObjectLocked(o.commit)
	if err != nil {
		return nil, err
	}
	changes, err := b.r.treeDiffLocked(pc.TreeHash, c.TreeHash, "", pathFilter{grant: b.grant}, nil)
	if err != nil {
		return nil, err
	}
	if changes, err = b.r.pairRenamesLocked(changes); err != nil {
		return nil, err
	}
	for _, ch := range changes {
		if ch.to.path == o.path && ch.from.path != "" && ch.from.path != o.path && isRegular(ch.from.mode) {
			return b.origin(ph, ch.from.path, ch.from.hash), nil
		}
	}
	return nil, nil
}

// lookupLocked finds the entry at clean path p in a tree. r.mu must be
// held.
func (r *repo) lookupLocked(tree plumbing.Hash, p string) (treeEntry, bool, error) {
	dir, rest := tree, p
	for {
		name, tail, more := cutPath(rest)
		entries, err := r.treeLocked(dir)
		if err != nil {
			return treeEntry{}, false, err
		}
		te, ok := findEntry(entries, name)
		if !ok {
			return treeEntry{}, false, nil
		}
		if !more {
			return te, true, nil
		}
		if te.mode != filemode.Dir {
			return treeEntry{}, false, nil
		}
		dir, rest = te.hash, tail
	}
}

func cutPath(p string) (string, string, bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

// passTo diffs the parent's version with o's and moves the lines the
// parent already had to it. It reports whether any moved.
func (b *blamer) passTo(o, po *origin) (bool, error) {
	a, _, err := b.r.readBlobLocked(po.blob, 0, maxBlameBlob)
	if err != nil {
		return false, err
	}
	c, _, err := b.r.readBlobLocked(o.blob, 0, maxBlameBlob)
	if err != nil {
		return false, err
	}
	if isBinary(a) {
		return false, nil
	}
	// git blame diffs without context, and so, as git's xdi_diff does,
	// first drops the common tail in 1 KiB blocks; the dropped lines are
	// the same on both sides.
	ta, tc := trimCommonTail(a, c)
	d := diffLinesBy(ta, tc, b.ws)
	// parentLine[i] is the parent's line for o's line i, or -1 when the
	// line is new in o.
	total := len(splitLines(c))
	parentLine := make([]int, total)
	i := 0
	for j := range d.b {
		for i < len(d.a) && d.delA[i] {
			i++
		}
		if d.addB[j] {
			parentLine[j] = -1
			continue
		}
		parentLine[j] = i
		i++
	}
	for j := len(d.b); j < total; j++ {
		parentLine[j] = len(d.a) + j - len(d.b)
	}
	var keep, moved []blameEntry
	for _, e := range o.entries {
		for k := 0; k < e.n; {
			pl := parentLine[e.orig+k]
			run := 1
			for k+run < e.n && (pl < 0) == (parentLine[e.orig+k+run] < 0) && (pl < 0 || parentLine[e.orig+k+run] == pl+run) {
				run++
			}
			piece := blameEntry{final: e.final + k, orig: e.orig + k, n: run}
			if pl < 0 {
				keep = append(keep, piece)
			} else {
				piece.orig = pl
				moved = append(moved, piece)
			}
			k += run
		}
	}
	o.entries = keep
	if len(moved) == 0 {
		return false, nil
	}
	po.entries = mergeEntries(po.entries, moved)
	return true, nil
}

// mergeEntries joins two entry lists, sorted by final line.
func mergeEntries(a, b []blameEntry) []blameEntry {
	out := append(slices.Clone(a), b...)
	slices.SortFunc(out, func(x, y blameEntry) int { return x.final - y.final })
	return out
}

// hunks turns the blamed origins into hunks in file order, joining runs
// of one commit whose lines follow each other on both sides.
func (b *blamer) hunks() []BlameHunk {
	var out []BlameHunk
	for _, o := range b.done {
		for _, e := range o.entries {
			h := BlameHunk{
				StartLine: e.final + 1, EndLine: e.final + e.n, SHA: o.commit.String(),
				OrigPath: o.path, OrigStartLine: e.orig + 1,
			}
			if o.previous != nil {
				h.PreviousSHA, h.PreviousPath = o.previous.commit.String(), o.previous.path
			}
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(x, y BlameHunk) int { return x.StartLine - y.StartLine })
	joined := out[:0]
	for _, h := range out {
		if n := len(joined); n > 0 {
			last := &joined[n-1]
			if last.SHA == h.SHA && last.OrigPath == h.OrigPath && last.EndLine+1 == h.StartLine &&
				last.OrigStartLine+(last.EndLine-last.StartLine)+1 == h.OrigStartLine {
				last.EndLine = h.EndLine
				continue
			}
		}
		joined = append(joined, h)
	}
	return joined
}

// originQueue orders origins newest committer time first, ties in the
// order they were made.
type originQueue []*origin

func (q originQueue) Len() int { return len(q) }
func (q originQueue) Less(i, j int) bool {
	ti, tj := q[i].c.Committer.When.Unix(), q[j].c.Committer.When.Unix()
	if ti != tj {
		return ti > tj
	}
	return q[i].seq < q[j].seq
}
func (q originQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *originQueue) Push(x any)   { *q = append(*q, x.(*origin)) }
func (q *originQueue) Pop() any {
	old := *q
	o := old[len(old)-1]
	*q = old[:len(old)-1]
	return o
}

// trimCommonTail is git's trim_common_tail: the tails of a and b that are
// equal in whole 1 KiB blocks are cut, back to just after a newline.
func trimCommonTail(a, b []byte) ([]byte, []byte) {
	const blk = 1024
	trimmed := 0
	smaller := min(len(a), len(b))
	for blk+trimmed <= smaller && bytes.Equal(a[len(a)-trimmed-blk:len(a)-trimmed], b[len(b)-trimmed-blk:len(b)-trimmed]) {
		trimmed += blk
	}
	recovered := 0
	ap := len(a) - trimmed
	for recovered < trimmed {
		recovered++
		if a[ap+recovered-1] == '\n' {
			break
		}
	}
	cut := trimmed - recovered
	return a[:len(a)-cut], b[:len(b)-cut]
}
