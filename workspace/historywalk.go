package workspace

import (
	"container/heap"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// commitWalk is the one walk of the commit graph in git log's order that
// every history read uses ([Snapshot.Commits], [Snapshot.History] and its
// path-limited and pickaxe forms): a queue by committer time, ties first
// in, first out, as git's prio_queue; each commit queued once. Which
// parents of a commit are queued is the caller's choice (history
// simplification queues fewer), so the walk itself only keeps the order
// and the one rule every caller shares: a commit on a shallow clone's
// boundary is walked as if it had no parents, since they were never
// fetched (git log does the same). It is not safe for concurrent use;
// r.mu must be held around each call.
type commitWalk struct {
	r        *repo
	boundary []plumbing.Hash
	queue    walkQueue
	seen     map[plumbing.Hash]bool
	seq      int
}

// newCommitWalkLocked starts an empty walk of w's repository. r.mu must be
// held.
func (w *Workspace) newCommitWalkLocked() *commitWalk {
	return &commitWalk{r: w.repo, boundary: w.boundaryLocked(), seen: make(map[plumbing.Hash]bool)}
}

// pushLocked queues commit h, unless it was queued before.
func (w *commitWalk) pushLocked(h plumbing.Hash) error {
	if w.seen[h] {
		return nil
	}
	w.seen[h] = true
	n, err := w.r.nodeLocked(h)
	if err != nil {
		return err
	}
	if len(w.boundary) > 0 && slices.Contains(w.boundary, h) {
		n.parents = nil
	}
	w.seq++
	heap.Push(&w.queue, walkItem{n: n, seq: w.seq})
	return nil
}

// pop takes out the next commit, newest first; ok is false when the walk
// has ended.
func (w *commitWalk) pop() (n commitNode, ok bool) {
	if w.queue.Len() == 0 {
		return commitNode{}, false
	}
	return heap.Pop(&w.queue).(walkItem).n, true
}

type walkItem struct {
	n   commitNode
	seq int
}

// walkQueue orders commits newest committer time (in seconds) first, ties
// in the order they were queued, as git's prio_queue does.
type walkQueue []walkItem

func (q walkQueue) Len() int { return len(q) }
func (q walkQueue) Less(i, j int) bool {
	ti, tj := q[i].n.when, q[j].n.when
	if ti != tj {
		return ti > tj
	}
	return q[i].seq < q[j].seq
}
func (q walkQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *walkQueue) Push(x any)   { *q = append(*q, x.(walkItem)) }
func (q *walkQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
