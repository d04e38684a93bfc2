package workspace

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	commitgraph "github.com/go-git/go-git/v5/plumbing/format/commitgraph/v2"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signature is who made a commit, and when, in their own time zone.
type Signature struct {
	Name  string
	Email string // "" when the operator hides emails
	Time  time.Time
}

// CommitInfo is a commit's metadata.
type CommitInfo struct {
	SHA       string
	Parents   []string
	Author    Signature
	Committer Signature
	Message   string // the whole message, as stored
}

// Subject is the message's first line.
func (c CommitInfo) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return strings.TrimSuffix(s, "\r")
}

// Body is the message after the subject and the blank lines that follow
// it.
func (c CommitInfo) Body() string {
	_, body, _ := strings.Cut(c.Message, "\n")
	return strings.TrimLeft(body, "\r\n")
}

// historyCache holds what history reads compute, keyed by immutable
// object ids (with the caller's path filter where it matters), so that it
// is never stale and a second identical call costs a lookup. Each map is
// bounded and emptied when full, like the repo's other caches.
type historyCache struct {
	commits map[plumbing.Hash]*object.Commit
	changes map[string][]ChangedFile // a commit's or a diff's files, by its key
	logs    map[string]logResult     // logKey -> a walk's result
	blames  map[string]Blame         // a blame, by its commit, path, lines and caller
	patches map[string][]byte        // a rendered patch, by what it is rendered from
	// patchBytes is the size of the patches held.
	patchBytes int
	// graph is the repository's commit-graph, nil when it has none;
	// graphLoaded says it was looked for.
	graph       commitgraph.Index
	graphLoaded bool
	// bloom are the graph's changed-path filters, nil when it has none.
	bloom *bloomFilters
	// packs reads objects from the mapped packs; nil until first used.
	packs *packReader
	// drivers names the diff driver of paths, for hunk headers.
	drivers diffDrivers
	// funcRules are the drivers' function-name rules, compiled on first
	// use.
	funcRules funcRules
}

const (
	maxHistoryCommits = 1 << 16
	maxCachedChanges  = 1 << 14
	maxCachedLogs     = 256
	maxCachedBlames   = 256
	maxPatchBytes     = 64 << 20
)

// historyLocked returns the repo's history cache. r.mu must be held.
func (r *repo) historyLocked() *historyCache {
	if r.hist == nil {
		r.hist = &historyCache{
			commits: make(map[plumbing.Hash]*object.Commit),
			changes: make(map[string][]ChangedFile),
			logs:    make(map[string]logResult),
			blames:  make(map[string]Blame),
			patches: make(map[string][]byte),
		}
	}
	return r.hist
}

// commitObjectLocked returns a decoded commit. r.mu must be held.
func (r *repo) commitObjectLocked(h plumbing.Hash) (*object.Commit, error) {
	hc := r.historyLocked()
	if c, ok := hc.commits[h]; ok {
		return c, nil
	}
	data, err := r.objectLocked(plumbing.CommitObject, h, maxCommitBytes)
	if err != nil {
		return nil, err
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(plumbing.CommitObject)
	obj.Write(data) // a MemoryObject's Write does not fail
	c, err := object.DecodeCommit(r.storage, obj)
	if err != nil {
		return nil, err
	}
	if len(hc.commits) >= maxHistoryCommits {
		clear(hc.commits)
	}
	hc.commits[h] = c
	return c, nil
}

// infoOf converts a decoded commit for callers.
func infoOf(c *object.Commit, hideEmails bool) CommitInfo {
	info := CommitInfo{
		SHA:       c.Hash.String(),
		Parents:   make([]string, len(c.ParentHashes)),
		Author:    signature(c.Author, hideEmails),
		Committer: signature(c.Committer, hideEmails),
		Message:   c.Message,
	}
	for i, p := range c.ParentHashes {
		info.Parents[i] = p.String()
	}
	return info
}

func signature(s object.Signature, hideEmails bool) Signature {
	sig := Signature{Name: s.Name, Email: s.Email, Time: s.When}
	if hideEmails {
		sig.Email = ""
	}
	return sig
}

// maxCommitBytes bounds a commit object read by history (a message of a
// megabyte is already far past any real one).
const maxCommitBytes = 16 << 20

// objectLocked reads a whole object of type typ: from the mapped packs
// when they hold it, else through go-git. An object larger than max is
// refused. r.mu must be held.
func (r *repo) objectLocked(typ plumbing.ObjectType, h plumbing.Hash, max int64) ([]byte, error) {
	data, ok, err := r.smallObjectLocked(typ, h, max)
	if err == nil && !ok {
		err = fmt.Errorf("%s %s is larger than %d bytes", typ, h, max)
	}
	return data, err
}

// encodedObjectLocked reads object h, whatever its type: from the mapped
// packs when they hold it, else through go-git. Resolving a revision reads
// its commit and tags here, so that a first call does not make go-git
// decode and checksum a pack's whole index (and map every offset) for a
// few objects: that was a quarter of a path log's first call. r.mu must
// be held.
func (r *repo) encodedObjectLocked(h plumbing.Hash) (plumbing.EncodedObject, error) {
	if t, data, err := r.packsLocked().read(h, maxCommitBytes); err == nil {
		obj := &plumbing.MemoryObject{}
		obj.SetType(t)
		obj.Write(data) // a MemoryObject's Write does not fail
		return obj, nil
	}
	return r.storageObjectLocked(plumbing.AnyObject, h)
}

// packsLocked returns the reader of the mapped packs, mapping them on
// first use. r.mu must be held.
func (r *repo) packsLocked() *packReader {
	hc := r.historyLocked()
	if hc.packs == nil {
		hc.packs = r.openPackReaderLocked()
	}
	return hc.packs
}

// smallObjectLocked is objectLocked, reporting an object larger than max
// as !ok rather than an error, without reading it. r.mu must be held.
func (r *repo) smallObjectLocked(typ plumbing.ObjectType, h plumbing.Hash, max int64) (data []byte, ok bool, err error) {
	if t, data, err := r.packsLocked().read(h, max); err == nil && t == typ {
		return data, true, nil
	}
	// Not in the mapped packs, larger than max, or not what the pack
	// reader takes: go-git decides, so the mapped packs are only ever a
	// shortcut.
	obj, err := r.storageObjectLocked(typ, h)
	if err != nil {
		return nil, false, err
	}
	if obj.Size() > max {
		return nil, false, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, false, err
	}
	defer rd.Close()
	data = make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// close releases what the cache holds outside the heap: the mapped packs.
func (hc *historyCache) close() error {
	if hc == nil || hc.packs == nil {
		return nil
	}
	return hc.packs.close()
}
