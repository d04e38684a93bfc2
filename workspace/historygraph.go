package workspace

import (
	"bytes"
	"io"
	"path"

	"github.com/go-git/go-git/v5/plumbing"
	commitgraph "github.com/go-git/go-git/v5/plumbing/format/commitgraph/v2"
)

// commitNode is what a walk needs of a commit: its tree, its parents and
// its committer time. Git's commit-graph file holds exactly this for the
// commits it covers, so a walk reads it there, where it can, instead of
// inflating and parsing each commit from the packs; the message and the
// people are read only for commits a filter or a page needs.
type commitNode struct {
	hash    plumbing.Hash
	tree    plumbing.Hash
	parents []plumbing.Hash
	when    int64 // committer time, Unix seconds
}

// maxGraphBytes bounds the commit-graph file read into memory (40 bytes
// and change per commit: a million commits); a larger one is not used.
const maxGraphBytes = 64 << 20

// nodeLocked returns a commit's node, from the commit-graph when it
// covers the commit. r.mu must be held.
func (r *repo) nodeLocked(h plumbing.Hash) (commitNode, error) {
	if g := r.graphLocked(); g != nil {
		if i, err := g.GetIndexByHash(h); err == nil {
			if cd, err := g.GetCommitDataByIndex(i); err == nil {
				return commitNode{hash: h, tree: cd.TreeHash, parents: cd.ParentHashes, when: cd.When.Unix()}, nil
			}
		}
	}
	c, err := r.commitObjectLocked(h)
	if err != nil {
		return commitNode{}, err
	}
	return commitNode{hash: h, tree: c.TreeHash, parents: c.ParentHashes, when: c.Committer.When.Unix()}, nil
}

// graphLocked loads objects/info/commit-graph once, into memory (so no
// descriptor outlives the call, and a file that git gc replaces later
// cannot change under the reader: what it says of a commit never changes).
// It returns nil when there is none, or it cannot be read. Split graphs
// (commit-graphs/) are not read. r.mu must be held.
func (r *repo) graphLocked() commitgraph.Index {
	hc := r.historyLocked()
	if hc.graphLoaded {
		return hc.graph
	}
	hc.graphLoaded = true
	f, err := r.storage.Filesystem().Open(path.Join("objects", "info", "commit-graph"))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGraphBytes+1))
	if err != nil || len(data) > maxGraphBytes {
		return nil
	}
	idx, err := commitgraph.OpenFileIndex(memFile{bytes.NewReader(data)})
	if err != nil {
		return nil
	}
	hc.graph = idx
	return idx
}

// memFile is a commit-graph held in memory.
type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }
