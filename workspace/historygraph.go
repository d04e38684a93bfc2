package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/go-git/go-billy/v5"

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
	// graphPos is the commit's position in the commit-graph, where its
	// changed-path filter is found; inGraph says the graph covers it.
	graphPos uint32
	inGraph  bool
}

// maxGraphBytes bounds the commit-graph files read into memory (40 bytes
// and change per commit: a million commits); a larger one is not used.
const maxGraphBytes = 64 << 20

// nodeLocked returns a commit's node, from the commit-graph when it
// covers the commit. r.mu must be held.
func (r *repo) nodeLocked(h plumbing.Hash) (commitNode, error) {
	if g := r.graphLocked(); g != nil {
		if i, err := g.GetIndexByHash(h); err == nil {
			if cd, err := g.GetCommitDataByIndex(i); err == nil {
				return commitNode{hash: h, tree: cd.TreeHash, parents: cd.ParentHashes, when: cd.When.Unix(), graphPos: i, inGraph: true}, nil
			}
		}
	}
	if c, ok := r.historyLocked().commits[h]; ok {
		return commitNode{hash: h, tree: c.TreeHash, parents: c.ParentHashes, when: c.Committer.When.Unix()}, nil
	}
	data, err := r.objectLocked(plumbing.CommitObject, h, maxCommitBytes)
	if err != nil {
		return commitNode{}, err
	}
	n := parseNode(data)
	n.hash = h
	return n, nil
}

// parseNode reads a walk's node from a commit object's header: its tree,
// parents and committer time. Only the header is parsed; decoding the
// whole commit (people, message, signature) was two fifths of the cost
// of reading a commit in a path-limited log. Like git's parse_commit_date,
// the time is the number after the committer line's last '>'.
func parseNode(data []byte) commitNode {
	var n commitNode
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		if len(line) == 0 {
			break // the end of the header
		}
		key, value, _ := bytes.Cut(line, []byte(" "))
		switch string(key) {
		case "tree":
			n.tree = plumbing.NewHash(string(value))
		case "parent":
			n.parents = append(n.parents, plumbing.NewHash(string(value)))
		case "committer":
			if i := bytes.LastIndexByte(value, '>'); i >= 0 {
				stamp, _, _ := bytes.Cut(bytes.TrimLeft(value[i+1:], " "), []byte(" "))
				n.when, _ = strconv.ParseInt(string(stamp), 10, 64)
			}
		}
	}
	return n
}

// graphLocked loads the repository's commit-graph once, into memory (so
// no descriptor outlives the call, and a file that git gc replaces later
// cannot change under the reader: what it says of a commit never
// changes), with its changed-path filters when it has them. As git does,
// it reads objects/info/commit-graph, or when there is none the split
// graph that commit-graphs/commit-graph-chain lists, base first. It
// returns nil when there is neither, or it cannot be read whole within
// maxGraphBytes. r.mu must be held.
func (r *repo) graphLocked() commitgraph.Index {
	hc := r.historyLocked()
	if !hc.graphLoaded {
		hc.graphLoaded = true
		budget := int64(maxGraphBytes)
		fs := r.storage.Filesystem()
		bloom := &bloomFilters{}
		if data, err := readBounded(fs, path.Join("objects", "info", "commit-graph"), &budget); err == nil {
			if hc.graph, err = commitgraph.OpenFileIndex(memFile{bytes.NewReader(data)}); err == nil {
				bloom.addLayer(data, 0)
			}
		} else if errors.Is(err, os.ErrNotExist) {
			hc.graph = readGraphChain(fs, &budget, bloom)
		}
		if hc.graph != nil && len(bloom.layers) > 0 {
			hc.bloom = bloom
		}
	}
	return hc.graph
}

// bloomLocked returns the changed-path filters of the commit-graph, nil
// when it has none. r.mu must be held.
func (r *repo) bloomLocked() *bloomFilters {
	r.graphLocked()
	return r.hist.bloom
}

// readGraphChain reads a split commit-graph: the chain file names one
// graph file per line, the base first, each layer adding the commits its
// parent layers do not hold. The layers' filters go to bloom.
func readGraphChain(fs billy.Filesystem, budget *int64, bloom *bloomFilters) commitgraph.Index {
	dir := path.Join("objects", "info", "commit-graphs")
	data, err := readBounded(fs, path.Join(dir, "commit-graph-chain"), budget)
	if err != nil {
		return nil
	}
	var idx commitgraph.Index
	for line := range strings.Lines(string(data)) {
		name := strings.TrimSuffix(line, "\n")
		if !plumbing.IsHash(name) {
			return nil
		}
		layer, err := readBounded(fs, path.Join(dir, "graph-"+name+".graph"), budget)
		if err != nil {
			return nil
		}
		var first uint32 // the layer's first position: its parents' commits come before
		if idx != nil {
			first = idx.MaximumNumberOfHashes()
		}
		if idx, err = commitgraph.OpenFileIndexWithParent(memFile{bytes.NewReader(layer)}, idx); err != nil {
			return nil
		}
		bloom.addLayer(layer, first)
	}
	return idx
}

// readBounded reads a whole file of at most *budget bytes, and takes its
// size from the budget.
func readBounded(fs billy.Filesystem, name string, budget *int64) ([]byte, error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read into a buffer of the size the file has, as os.ReadFile does:
	// a commit-graph with filters is hundreds of kilobytes, which ReadAll
	// would reach by growing and copying.
	size := int64(512)
	if fi, err := fs.Stat(name); err == nil {
		size = min(fi.Size(), *budget) + 1 // one more byte to read the end
	}
	data := make([]byte, 0, size)
	for int64(len(data)) <= *budget {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(data)) > *budget {
		return nil, fmt.Errorf("%s: larger than the %d bytes left for commit-graphs", name, *budget)
	}
	*budget -= int64(len(data))
	return data, nil
}

// memFile is a commit-graph held in memory.
type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }
