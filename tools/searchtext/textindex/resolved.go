package textindex

import "slices"

// A Resolved is a list of blobs located in the index once: a warm search
// of a commit asks about the same ten thousand blobs every time, and
// finding each by id (and grouping them by shard) cost more than the
// posting lists it then reads. It is immutable and holds for the index
// as it was when made; [Index.Resolve] makes it again when the index has
// changed since.
type Resolved struct {
	gen    uint64
	status []Status
	shards []resolvedShard // by shard number; empty for shards holding none
}

// resolvedShard is one shard's part of a list: its ordinals of the list's
// text blobs, ascending and distinct, and for the k-th of them the list
// positions holding that blob, from[start[k]:start[k+1]].
type resolvedShard struct {
	ords  []uint32
	start []int32
	from  []int32
}

// Status returns the blobs' status, in list order: the slice is shared,
// not to be modified.
func (r *Resolved) Status() []Status { return r.status }

// ResolvedCandidates is [Index.Candidates] through a resolution of
// blobs: prev when it still holds for the index (the caller keeps it with
// the list it was made of), else a new one, which it returns for the next
// call.
func (ix *Index) ResolvedCandidates(p Plan, blobs []Blob, prev *Resolved) ([]bool, *Resolved) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	r := prev
	if r == nil || r.gen != ix.gen || len(r.status) != len(blobs) {
		r = ix.resolveLocked(blobs)
	}
	out := make([]bool, len(r.status))
	for i, s := range r.status {
		out[i] = s == Unknown
	}
	for si, rs := range r.shards {
		if len(rs.ords) == 0 {
			continue
		}
		k := 0
		for _, ord := range ix.shards[si].eval(p.q, rs.ords) {
			// eval returns a subsequence of ords: walk along.
			for rs.ords[k] != ord {
				k++
			}
			for _, i := range rs.from[rs.start[k]:rs.start[k+1]] {
				out[i] = true
			}
		}
	}
	return out, r
}

// resolveLocked locates blobs in the index. ix.mu must be held.
func (ix *Index) resolveLocked(blobs []Blob) *Resolved {
	r := &Resolved{gen: ix.gen, status: make([]Status, len(blobs)), shards: make([]resolvedShard, len(ix.shards))}
	type pos struct {
		loc
		i int32
	}
	var text []pos
	for i, b := range blobs {
		l, ok := ix.where[b]
		switch {
		case !ok:
		case ix.shards[l.shard].binary(int(l.ord)):
			r.status[i] = Binary
		default:
			r.status[i] = Text
			text = append(text, pos{l, int32(i)})
		}
	}
	slices.SortFunc(text, func(a, b pos) int {
		switch {
		case a.shard != b.shard:
			return int(a.shard - b.shard)
		case a.ord != b.ord:
			return int(int64(a.ord) - int64(b.ord))
		}
		return int(a.i - b.i)
	})
	for k, p := range text {
		rs := &r.shards[p.shard]
		if k == 0 || p.loc != text[k-1].loc {
			rs.ords = append(rs.ords, p.ord)
			rs.start = append(rs.start, int32(len(rs.from)))
		}
		rs.from = append(rs.from, p.i)
	}
	for i := range r.shards {
		if rs := &r.shards[i]; len(rs.ords) > 0 {
			rs.start = append(rs.start, int32(len(rs.from)))
		}
	}
	return r
}
