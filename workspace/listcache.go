package workspace

import (
	"cmp"
	"container/list"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// A dirListing is the children of one directory as a listing shows them:
// names that cannot be shown already dropped and counted, each remaining
// entry judged once by the workspace's deny patterns. The caller's
// policies are not part of it; a walk applies them on every call.
//
// A dirListing taken from a listCache is shared: it must not be modified.
type dirListing struct {
	entries []Entry
	// denied[i] says the workspace deny list hides entries[i] (given that
	// its parent is shown); nil means nothing was judged yet.
	denied  []bool
	invalid int  // children dropped for their names
	sized   bool // files carry their sizes
}

// listKey names a directory of a commit. The tree hash alone does not
// suffice: the same tree may sit at several paths, and entries carry
// their full paths.
type listKey struct {
	tree plumbing.Hash
	dir  string
}

// listCache keeps the dirListings of commit trees, least recently used
// first out, bounded by the number of entries it holds. Trees are
// immutable, so a cached listing never goes stale; what it saves on a
// repeated listing is the decoding, the object header read for every
// file's size, and the deny-pattern matching. It is safe for concurrent
// use.
type listCache struct {
	mu         sync.Mutex
	maxEntries int
	entries    int
	order      *list.List // of *cachedListing, most recent at the front
	byKey      map[listKey]*list.Element
}

type cachedListing struct {
	key     listKey
	listing *dirListing
}

// maxListedEntries bounds a workspace's listCache: about 160 bytes an
// entry (the Entry, its path and its SHA), so at most about 20 MiB, which
// holds the whole tree of a Kubernetes-sized repository at four commits.
const maxListedEntries = 1 << 17

func newListCache(maxEntries int) *listCache {
	return &listCache{
		maxEntries: maxEntries,
		order:      list.New(),
		byKey:      make(map[listKey]*list.Element),
	}
}

func (c *listCache) get(k listKey) (*dirListing, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cachedListing).listing, true
}

// put stores l under k, replacing a listing without sizes by one with
// them, and evicts the least recently used listings beyond the bound.
func (c *listCache) put(k listKey, l *dirListing) {
	n := len(l.entries)
	if n > c.maxEntries {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		old := el.Value.(*cachedListing)
		if old.listing.sized || !l.sized {
			return
		}
		c.entries += n - len(old.listing.entries)
		old.listing = l
		c.order.MoveToFront(el)
	} else {
		c.byKey[k] = c.order.PushFront(&cachedListing{key: k, listing: l})
		c.entries += n
	}
	for c.entries > c.maxEntries {
		last := c.order.Back()
		t := last.Value.(*cachedListing)
		c.order.Remove(last)
		delete(c.byKey, t.key)
		c.entries -= len(t.listing.entries)
	}
}

// A listSession is one walk's reading of a commit.
type listSession struct {
	// packsChecked is set once the walk has looked for packs written
	// since the repository's were mapped (refreshPacksLocked).
	packsChecked bool
}

// listing returns the children of directory dir of the commit, from the
// workspace's cache when it holds them (with sizes, if sizes is set). A
// walk passes its session; sess may be nil.
func (c *commitSource) listing(dir Entry, sizes bool, sess *listSession) (*dirListing, error) {
	cache := c.ws.deny.listings
	key := listKey{tree: parseHash(dir.SHA), dir: dir.Path}
	if l, ok := cache.get(key); ok && (l.sized || !sizes) {
		return l, nil
	}
	l, _, err := c.readListing(key, sizes, sess)
	if err != nil {
		return nil, err
	}
	c.judge(l)
	cache.put(key, l)
	return l, nil
}

// judge records the workspace deny list's verdict on each entry of l.
func (c *commitSource) judge(l *dirListing) {
	c.judgeSome(l, true)
	c.judgeSome(l, false)
}

// judgeSome records the workspace deny list's verdict on the entries of l
// that are directories (dirs set) or that are not: a prefetch needs the
// first to walk on, and leaves the others to its sizer.
func (c *commitSource) judgeSome(l *dirListing, dirs bool) {
	if l.denied == nil {
		l.denied = make([]bool, len(l.entries))
	}
	for i := range l.entries {
		if e := &l.entries[i]; (e.Type == TypeDir) == dirs {
			_, l.denied[i] = c.ws.deny.matchEntry(e.Path)
		}
	}
}

// readListing decodes the tree of directory k and describes its children.
// Their paths share one string, and so do their SHAs: two allocations a
// directory rather than two an entry. It also returns the tree entries the
// listing's entries were made from, one for one; they must not be
// modified.
func (c *commitSource) readListing(k listKey, sizes bool, sess *listSession) (*dirListing, []treeEntry, error) {
	r := c.ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	if sess != nil && !sess.packsChecked {
		r.refreshPacksLocked()
		sess.packsChecked = true
	}
	tree, err := r.treeLocked(k.tree)
	if err != nil {
		return nil, nil, c.objectError(k.dir, err)
	}
	l, valid := newListing(k.dir, tree)
	for i := range l.entries {
		if e := &l.entries[i]; e.Type == TypeSymlink {
			if err := c.fillTargetLocked(e, valid[i].hash); err != nil {
				return nil, nil, err
			}
		}
	}
	if sizes {
		if err := c.fillSizesLocked(l.entries, valid); err != nil {
			return nil, nil, err
		}
		l.sized = true
	}
	return l, valid, nil
}

// newListing makes the listing of directory dir from its tree, without
// symlinks' targets or sizes: the entries whose names can be shown, and
// those tree entries (valid[i] is entries[i]'s).
func newListing(dir string, tree []treeEntry) (l *dirListing, valid []treeEntry) {
	prefix := dir
	if prefix != "" {
		prefix += "/"
	}
	valid = validEntries(tree)
	pathText, shaText := listingText(prefix, valid)
	l = &dirListing{entries: make([]Entry, len(valid)), invalid: len(tree) - len(valid)}
	off := 0
	for i, te := range valid {
		n := len(prefix) + len(te.name)
		e := &l.entries[i]
		*e = typedEntry(te)
		e.Path, e.SHA = pathText[off:off+n], shaText[i*shaLen:(i+1)*shaLen]
		off += n
	}
	return l, valid
}

// shaLen is the length of an object id in hex.
const shaLen = 2 * len(plumbing.ZeroHash)

// validEntries returns the entries of tree whose names can be shown: tree
// itself when all of them can, as nearly always, else a copy without the
// others. The caller must not modify the result.
func validEntries(tree []treeEntry) []treeEntry {
	i := slices.IndexFunc(tree, func(te treeEntry) bool { return !validEntryName(te.name) })
	if i < 0 {
		return tree
	}
	valid := tree[:i:i] // full: appending copies, leaving tree (cached) alone
	for _, te := range tree[i+1:] {
		if validEntryName(te.name) {
			valid = append(valid, te)
		}
	}
	return valid
}

// listingText returns the paths of entries under prefix, one after the
// other, and their SHAs in hex, in two strings built in place: a
// directory's entries slice them rather than each holding a copy.
func listingText(prefix string, entries []treeEntry) (paths, shas string) {
	var p, h strings.Builder
	n := 0
	for _, te := range entries {
		n += len(prefix) + len(te.name)
	}
	p.Grow(n)
	h.Grow(len(entries) * shaLen)
	var hexSHA [shaLen]byte
	for _, te := range entries {
		p.WriteString(prefix)
		p.WriteString(te.name)
		hex.Encode(hexSHA[:], te.hash[:])
		h.Write(hexSHA[:])
	}
	return p.String(), h.String()
}

// parseHash is plumbing.NewHash without its allocation: walks parse the
// SHA of every directory they enter.
func parseHash(s string) plumbing.Hash {
	var h plumbing.Hash
	var text [2 * len(plumbing.ZeroHash)]byte
	hex.Decode(h[:], text[:copy(text[:], s)])
	return h
}

// fillSizesLocked fills in the sizes of the files among entries, whose
// tree entries are valid: from the packs (packedSizes), else from the
// object store. r.mu must be held.
func (c *commitSource) fillSizesLocked(entries []Entry, valid []treeEntry) error {
	for _, i := range packedSizes(c.ws.repo.packsLocked(), entries, valid) {
		if err := c.objectSizeLocked(&entries[i], valid[i].hash); err != nil {
			return err
		}
	}
	return nil
}

// packedSizes fills in the sizes of the files among entries that the
// packs of pr hold, and returns the indexes of the others: those the packs
// do not hold, or whose entries read other than as expected. Sizes are
// read in the order of the entries' offsets, so that the header windows
// (listsize.go) are read forward: in tree order, a fifth more of them were
// read. pr is the repository's reader under r.mu, or a view of it.
func packedSizes(pr *packReader, entries []Entry, valid []treeEntry) (missed []int) {
	type packed struct {
		pack int
		off  int64
		i    int // in entries
	}
	order := make([]packed, 0, len(entries))
	for i := range entries {
		if entries[i].Type != TypeFile {
			continue
		}
		if p, off, ok := pr.locate(valid[i].hash); ok {
			order = append(order, packed{p, off, i})
		} else {
			missed = append(missed, i)
		}
	}
	slices.SortFunc(order, func(a, b packed) int { return cmp.Or(cmp.Compare(a.pack, b.pack), cmp.Compare(a.off, b.off)) })
	for _, o := range order {
		size, err := pr.entrySize(pr.packs[o.pack], o.off)
		if err != nil {
			// Any surprise in the pack: the object store decides.
			missed = append(missed, o.i)
			continue
		}
		entries[o.i].Size = size
	}
	slices.Sort(missed) // the object store is asked in tree order, as the first error found is reported
	return missed
}

// objectSizeLocked sets e.Size to the size of blob h, asked of the object
// store. r.mu must be held.
func (c *commitSource) objectSizeLocked(e *Entry, h plumbing.Hash) error {
	size, err := c.ws.repo.blobSizeLocked(h)
	if err != nil {
		return c.objectError(e.Path, err)
	}
	e.Size = size
	return nil
}
