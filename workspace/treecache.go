package workspace

import (
	"container/list"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// treeCache keeps decoded trees, least recently used first out, bounded by
// the total number of entries it holds. Decoded trees are what make a
// repeated read or listing at the same commit cheap. It is not safe for
// concurrent use; repo.mu guards it.
type treeCache struct {
	maxEntries int
	entries    int
	order      *list.List // of *cachedTree, most recent at the front
	byHash     map[plumbing.Hash]*list.Element
}

type cachedTree struct {
	hash    plumbing.Hash
	entries []treeEntry
}

func newTreeCache(maxEntries int) *treeCache {
	return &treeCache{
		maxEntries: maxEntries,
		order:      list.New(),
		byHash:     make(map[plumbing.Hash]*list.Element),
	}
}

func (c *treeCache) get(h plumbing.Hash) ([]treeEntry, bool) {
	el, ok := c.byHash[h]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cachedTree).entries, true
}

func (c *treeCache) put(h plumbing.Hash, entries []treeEntry) {
	if _, ok := c.byHash[h]; ok || len(entries) > c.maxEntries {
		return
	}
	c.byHash[h] = c.order.PushFront(&cachedTree{hash: h, entries: entries})
	c.entries += len(entries)
	for c.entries > c.maxEntries {
		last := c.order.Back()
		t := last.Value.(*cachedTree)
		c.order.Remove(last)
		delete(c.byHash, t.hash)
		c.entries -= len(t.entries)
	}
}

// sortEntries puts entries in git tree order.
func sortEntries(entries []treeEntry) {
	slices.SortStableFunc(entries, compareEntries)
}
