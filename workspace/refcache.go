package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// refCache remembers what ref names ("HEAD", "refs/heads/main") resolved
// to, so that the usual read at the default revision does not reopen HEAD,
// the loose ref and the whole packed-refs file through go-git on every
// call. An entry is valid while the files its resolution depended on (the
// file of each ref in a symbolic chain, present or absent, and
// packed-refs) still stat the same: a check of a few lstat calls, no open
// and no read. SHAs are never looked up here; they need no ref files.
//
// Staleness is avoided by three rules. The files are stamped before go-git
// reads them, so a change that lands during a resolution makes the entry
// miss later rather than go unseen. An entry is only stored when its files
// were last changed well before the stamps were taken (git's "racy git"
// rule): a file rewritten in place within one tick of the file-system
// clock keeps its size, inode and timestamps, and only its age tells it
// apart. And refs this process writes itself (updateRef) clear the cache.
// The age rule trusts file timestamps to come from the clock time.Now
// reads, give or take the margin; a network file system whose server clock
// lags further behind could defeat it.
//
// On Linux the files' directories are watched too (refwatch_linux.go): an
// entry checked by lstat after its directories were watched is served
// without a system call for each file until an event arrives in any of
// them, so the usual call makes one read of the watch instead of three
// lstat calls.
//
// A short name ("main") is looked up as each of its candidates
// ("refs/heads/main", "refs/tags/main", ...), and each candidate, found or
// not, is an entry of its own, so ambiguities are reported as go-git
// alone would have them reported.
//
// A refCache belongs to a repo and is guarded by its mu.
type refCache struct {
	gitDir    string // HEAD and per-worktree refs live here
	commonDir string // refs/ and packed-refs live here (== gitDir unless a linked worktree)
	entries   map[plumbing.ReferenceName]refEntry
	watch     *refWatch // the registry's; nil: every hit is checked by lstat
	// hits and resolutions count the names served from the cache and those
	// resolved through go-git, and watchedHits the hits served without an
	// lstat, so that tests can tell which happened.
	hits, resolutions, watchedHits int
}

// refEntry is one cached outcome: the hash reference a name resolved to,
// or nil when no ref of that name existed, and the stamped files the
// outcome depends on.
type refEntry struct {
	ref  *plumbing.Reference
	deps []fileDep
	// checked is the watch's generation in which deps were last found
	// unchanged by lstat with their directories watched; 0 if never.
	checked uint64
}

type fileDep struct {
	path  string
	stamp fileStamp
}

// fileStamp is what lstat says of a file. Two stamps of the same path are
// equal only if the file was (very probably) not changed in between; the
// racy rule in refCache covers the case where it was.
type fileStamp struct {
	exists       bool
	mode         uint32 // file type and permissions
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
}

const (
	// maxCachedRefs bounds the cache. Names come from callers, so they are
	// not a small fixed set; a full cache is cleared, as repo's other caches
	// are.
	maxCachedRefs = 256
	// racyMargin is how long before the stamps a file's last change must
	// lie for its stamp to be trusted. On Linux a file's timestamps come
	// from the kernel's coarse clock, which advances once per tick (1 to
	// 10 ms with HZ between 1000 and 100) and may lag the clock read here
	// by up to a tick; 100 ms leaves an order of magnitude to spare for
	// that and for a busy machine, while an unchanged HEAD, which is
	// what matters, is far older than that. The cost of a larger margin
	// is only a few more misses right after a commit.
	racyMargin = 100 * time.Millisecond
	// coarseMargin replaces racyMargin for files whose timestamps hold
	// whole seconds only (no nanoseconds: ext3, HFS+, FAT's two seconds,
	// some network file systems).
	coarseMargin = 2 * time.Second
)

// newRefCache returns a cache for a repository layout, or nil when this
// platform cannot stamp files; a nil cache resolves every name through
// go-git.
func newRefCache(layout gitLayout) *refCache {
	if !canStamp {
		return nil
	}
	common := layout.commonDir
	if common == "" {
		common = layout.gitDir
	}
	return &refCache{
		gitDir:    layout.gitDir,
		commonDir: common,
		entries:   make(map[plumbing.ReferenceName]refEntry),
	}
}

// resolve follows name (symbolic refs included) to a hash reference, as
// storer.ResolveReference does, with the same errors: a missing ref is
// plumbing.ErrReferenceNotFound. The repo's mu must be held.
func (c *refCache) resolve(s storer.ReferenceStorer, name plumbing.ReferenceName) (*plumbing.Reference, error) {
	if c == nil {
		return storer.ResolveReference(s, name)
	}
	if e, ok := c.entries[name]; ok {
		if c.valid(name, e) {
			c.hits++
			if e.ref == nil {
				return nil, plumbing.ErrReferenceNotFound
			}
			return e.ref, nil
		}
		delete(c.entries, name)
	}
	start := time.Now()
	ref, deps, err := c.resolveStamped(s, name)
	// Other errors (an unreadable packed-refs, a symbolic loop) are not
	// remembered: they may be passing, and they are not the common case.
	outcome := err == nil || errors.Is(err, plumbing.ErrReferenceNotFound)
	if outcome && deps != nil && c.settled(deps, start) {
		c.store(name, refEntry{ref: ref, deps: deps})
	}
	return ref, err
}

// resolveStamped resolves name through go-git one level at a time, as
// storer.ResolveReference does (the same number of levels before
// storer.ErrMaxResolveRecursion), stamping the files of each level before
// go-git reads them. deps is nil when some file could not be stamped.
func (c *refCache) resolveStamped(s storer.ReferenceStorer, name plumbing.ReferenceName) (*plumbing.Reference, []fileDep, error) {
	c.resolutions++
	var deps []fileDep
	stampable := true
	for range storer.MaxResolveRecursion + 2 {
		if stampable {
			deps, stampable = c.stampRef(deps, name)
		}
		ref, err := s.Reference(name)
		if err != nil || ref.Type() != plumbing.SymbolicReference {
			if !stampable {
				deps = nil
			}
			return ref, deps, err
		}
		name = ref.Target()
	}
	return nil, nil, storer.ErrMaxResolveRecursion
}

// stampRef adds the stamps of the files go-git reads to look up one ref
// name: its loose file and, unless that is a non-empty regular file (which
// go-git reads instead), packed-refs. Should the loose file go away between
// its stamp and go-git's read, go-git reads packed-refs unstamped, but the
// loose file's stamp then no longer matches, so the entry never hits.
func (c *refCache) stampRef(deps []fileDep, name plumbing.ReferenceName) ([]fileDep, bool) {
	loose, ok := c.refPath(name)
	if !ok {
		return deps, false
	}
	deps, st, ok := stampOnce(deps, loose)
	if !ok {
		return deps, false
	}
	if st.exists && st.mode&typeMask == typeRegular && st.size > 0 {
		return deps, true
	}
	deps, _, ok = stampOnce(deps, filepath.Join(c.commonDir, "packed-refs"))
	return deps, ok
}

// stampOnce adds the stamp of path to deps unless it is there already (a
// chain of refs stamps packed-refs once), and returns the stamp.
func stampOnce(deps []fileDep, path string) ([]fileDep, fileStamp, bool) {
	for _, d := range deps {
		if d.path == path {
			return deps, d.stamp, true
		}
	}
	st, err := lstatStamp(path)
	if err != nil {
		return deps, fileStamp{}, false
	}
	return append(deps, fileDep{path: path, stamp: st}), st, true
}

// refPath returns the file go-git reads a ref name from, mirroring
// dotgit.RepositoryFilesystem: refs/ (but the exact paths refs/bisect,
// refs/rewritten and refs/worktree) lives in the common directory, any
// other name (HEAD) in the git directory. A name validRefName refuses (a
// symbolic ref may point anywhere) is not cached: it could name a path
// that is not a plain descendant of the directory.
func (c *refCache) refPath(name plumbing.ReferenceName) (string, bool) {
	n := string(name)
	if !validRefName(n) {
		return "", false
	}
	dir := c.gitDir
	if first, _, _ := strings.Cut(n, "/"); first == "refs" || first == "packed-refs" {
		switch n {
		case "refs/bisect", "refs/rewritten", "refs/worktree":
		default:
			dir = c.commonDir
		}
	}
	return filepath.Join(dir, filepath.FromSlash(n)), true
}

// valid reports whether entry e of name still holds: without a system call
// when no event arrived since its files were last found unchanged with
// their directories watched, else by lstat, after which it records the
// generation if its directories are watched. The watch is read and the
// directories watched before the lstat calls, so a change made after them
// is an event the next call reads.
func (c *refCache) valid(name plumbing.ReferenceName, e refEntry) bool {
	gen, watching := c.watch.poll()
	if watching && e.checked == gen {
		c.watchedHits++
		return true
	}
	watched := watching && c.watch.ensure(c.watchDirs(e.deps))
	if !c.unchanged(e.deps) {
		return false
	}
	if watched {
		e.checked = gen
		c.entries[name] = e
	}
	return true
}

// watchDirs returns the directories to watch for deps: each file's
// directory and every directory above it up to the git or common
// directory, so that a directory on the way renamed or replaced is an
// event too.
func (c *refCache) watchDirs(deps []fileDep) []string {
	dirs := make([]string, 0, 2*len(deps))
	for _, d := range deps {
		for dir := filepath.Dir(d.path); ; dir = filepath.Dir(dir) {
			dirs = append(dirs, dir)
			if dir == c.gitDir || dir == c.commonDir || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return dirs
}

// unchanged reports whether every file still stats as stamped.
func (c *refCache) unchanged(deps []fileDep) bool {
	for _, d := range deps {
		st, err := lstatStamp(d.path)
		if err != nil || st != d.stamp {
			return false
		}
	}
	return true
}

// settled reports whether every stamped file was last changed at least a
// margin before start, the time read before the stamps were taken. Only
// then does any later change, even one that keeps the inode and size,
// give the file a newer timestamp than its stamp holds. A symlink is never
// settled: go-git reads its target, which the stamp does not cover.
func (c *refCache) settled(deps []fileDep, start time.Time) bool {
	for _, d := range deps {
		st := d.stamp
		if !st.exists {
			continue
		}
		if st.mode&typeMask == typeSymlink {
			return false
		}
		margin := racyMargin
		if st.mtime%1e9 == 0 && st.ctime%1e9 == 0 {
			margin = coarseMargin
		}
		limit := start.Add(-margin).UnixNano()
		if st.mtime >= limit || st.ctime >= limit {
			return false
		}
	}
	return true
}

func (c *refCache) store(name plumbing.ReferenceName, e refEntry) {
	if len(c.entries) >= maxCachedRefs {
		clear(c.entries)
	}
	c.entries[name] = e
}

// invalidate forgets every entry; this process has written a ref.
func (c *refCache) invalidate() {
	if c != nil {
		clear(c.entries)
	}
}

// watchWith makes the cache use w, the registry's watch (nil: none).
func (c *refCache) watchWith(w *refWatch) {
	if c != nil {
		c.watch = w
	}
}
