package searchtext

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// fileRef is a file of the revision searched.
type fileRef struct {
	path string
	// sha is the file's blob id; "" for a file of the working tree that
	// differs from HEAD (or is not in it), which is read from disk.
	sha  string
	blob textindex.Blob
	size int64
}

// listFiles returns the regular files of snap the caller may read and
// the filter keeps, sorted by path, and the number left out for size.
// Symlinks and submodules are not searched.
func listFiles(ctx context.Context, snap *workspace.Snapshot, f *pathFilter, maxBytes int64) ([]fileRef, int, error) {
	var files []fileRef
	tooLarge := 0
	_, err := snap.Walk(ctx, "", workspace.WalkOptions{Recursive: true, Sizes: true}, func(e workspace.Entry) error {
		if e.Type != workspace.TypeFile || !f.keep(e.Path) {
			return nil
		}
		if e.Size > maxBytes {
			tooLarge++
			return nil
		}
		ref := fileRef{path: e.Path, sha: e.SHA, size: e.Size}
		if e.SHA != "" {
			b, err := textindex.ParseBlob(e.SHA)
			if err != nil {
				return err
			}
			ref.blob = b
		}
		files = append(files, ref)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	// Walks are in git's order (a directory sorts as if it ended in "/");
	// results are in plain byte order of paths.
	slices.SortFunc(files, func(a, b fileRef) int {
		switch {
		case a.path < b.path:
			return -1
		case a.path > b.path:
			return 1
		}
		return 0
	})
	return files, tooLarge, nil
}

func blobsOf(files []fileRef) []textindex.Blob {
	out := make([]textindex.Blob, len(files))
	for i, f := range files {
		out[i] = f.blob
	}
	return out
}

// run is one search in progress.
type run struct {
	sv   *Service
	snap *workspace.Snapshot
	// blobs reads the files that have a blob id: snap, or HEAD's snapshot
	// when snap is the working tree.
	blobs *workspace.Snapshot
	m     *matcher
	key   string // the search's arguments and commit, for cursors
	cur   cursor // where the page starts, when the call gave a cursor
	// files are the files searched, in path order; after a cursor of a
	// cut search, only those at or after its path.
	files []fileRef
	// listing is the cached listing files is, when it is all of one.
	listing *listing
	// verdicts are per file, once matched (or ruled out by the index).
	verdicts []verdict
	// start is the first file at or after the cursor's path.
	start int
	// frontier is the first file from start on that the time budget left
	// unmatched, or -1: the page ends there, and its cursor resumes there.
	frontier int
}

// read returns a file's content, or nil when it is over the bound.
func (r *run) read(ctx context.Context, f fileRef) ([]byte, error) {
	return r.sv.readBlob(ctx, r.source(f), f)
}

// source returns the snapshot f is read through.
func (r *run) source(f fileRef) *workspace.Snapshot {
	if f.sha != "" {
		return r.blobs
	}
	return r.snap
}

// verdict is what matching one file found.
type verdict struct {
	done     bool // matched (not cut by the time budget)
	binary   bool
	tooLarge bool
	lines    int
}

func (sv *Service) search(ctx context.Context, req *server.Request, in SearchTextIn) (SearchTextOut, error) {
	snap, err := toolkit.Snapshot(ctx, sv.reg, req, in.Target)
	if err != nil {
		return SearchTextOut{}, err
	}
	r, out, err := sv.execute(ctx, req, snap, in)
	if err != nil {
		return SearchTextOut{}, err
	}
	if err := r.page(ctx, in, out); err != nil {
		return SearchTextOut{}, err
	}
	return *out, nil
}

// execute checks the arguments, lists the files, and reads and matches
// the candidates: everything but the page. The arguments are checked
// before any file is listed.
func (sv *Service) execute(ctx context.Context, req *server.Request, snap *workspace.Snapshot, in SearchTextIn) (*run, *SearchTextOut, error) {
	m, err := compile(in)
	if err != nil {
		return nil, nil, err
	}
	filter, err := newPathFilter(in)
	if err != nil {
		return nil, nil, err
	}
	rev := snap.Revision().SHA
	r := &run{sv: sv, snap: snap, blobs: snap, m: m, key: searchKey(rev, in), frontier: -1}
	if in.Cursor != "" {
		if r.cur, err = decodeCursor(in.Cursor, r.key); err != nil {
			return nil, nil, err
		}
	}
	var files []fileRef
	var tooLarge int
	if rev == workspace.WorktreeRevision {
		if files, tooLarge, err = listFiles(ctx, snap, filter, sv.opts.MaxFileBytes); err != nil {
			return nil, nil, err
		}
		if r.blobs, err = sv.overlay(ctx, snap, in, filter, files); err != nil {
			return nil, nil, err
		}
	} else {
		if r.listing, err = sv.listings.list(ctx, snap, in, filter, sv.opts.MaxFileBytes); err != nil {
			return nil, nil, err
		}
		files, tooLarge = r.listing.files, r.listing.tooLarge
	}
	if r.cur.Rest {
		r.listing = nil // files is part of it
		// A cut search goes on where it stopped: the files before the
		// cursor were matched and shown by earlier pages.
		files = files[sort.Search(len(files), func(i int) bool { return files[i].path >= r.cur.Path }):]
	}
	r.files = files
	if in.Cursor != "" {
		r.start = sort.Search(len(files), func(i int) bool { return files[i].path >= r.cur.Path })
	}
	out := &SearchTextOut{Revision: rev, Skipped: Skipped{TooLarge: tooLarge, MaxFileBytes: sv.opts.MaxFileBytes}}
	out.Index.Files = len(files)
	r.verdicts = make([]verdict, len(files))
	work := r.plan(out)
	out.Index.Candidates = len(work)
	// The files of this page are matched first; those before the cursor
	// count only towards the totals.
	k := sort.SearchInts(work, r.start)
	work = append(work[k:len(work):len(work)], work[:k]...)
	if err := r.match(ctx, req, work); err != nil {
		return nil, nil, err
	}
	r.frontier = r.firstUndone(work)
	if len(work) > 0 && r.frontier == work[0] {
		// Not one file fitted in the budget: match the first anyway, so
		// that every page moves the search on.
		if err := r.matchAll(ctx, ctx, work[:1], nil); err != nil {
			return nil, nil, err
		}
		r.frontier = r.firstUndone(work)
	}
	out.Complete = r.frontier < 0 && !r.cur.Rest
	for i, v := range r.verdicts {
		switch {
		case r.frontier >= 0 && i >= r.frontier:
			continue // counted by the page that resumes here
		case !v.done:
			out.Complete = false // before the cursor, cut by the budget
		}
		switch {
		case v.binary:
			out.Skipped.Binary++
		case v.tooLarge:
			out.Skipped.TooLarge++
		case v.lines > 0:
			out.TotalMatches += v.lines
			out.TotalFiles++
		}
	}
	return r, out, nil
}

// firstUndone returns the first file of work at or after the page's
// start not matched yet, or -1.
func (r *run) firstUndone(work []int) int {
	for _, i := range work {
		if i >= r.start && !r.verdicts[i].done {
			return i
		}
	}
	return -1
}

// plan asks the index which files may match and returns the indexes of
// files to read and match, ascending; it marks the others done (and
// binary ones binary). Blobs the index does not know are read, and
// indexed in the background for later searches.
func (r *run) plan(out *SearchTextOut) []int {
	verdicts := r.verdicts
	var work []int
	var cands []bool
	var res *textindex.Resolved
	if r.listing != nil {
		prev := r.listing.resolved.Load()
		if cands, res = r.sv.ix.ResolvedCandidates(r.m.plan, r.listing.blobs, prev); res != prev {
			r.listing.resolved.Store(res)
		}
	} else {
		cands, res = r.sv.ix.ResolvedCandidates(r.m.plan, blobsOf(r.files), nil)
	}
	status := res.Status()
	var unknown []fileRef
	unindexed := 0
	for i := range r.files {
		switch {
		case r.files[i].sha == "":
			// A working tree file that is not HEAD's: read from disk.
			unindexed++
			work = append(work, i)
		case status[i] == textindex.Binary:
			verdicts[i] = verdict{done: true, binary: true}
		case status[i] == textindex.Unknown:
			unknown = append(unknown, r.files[i])
			work = append(work, i)
		case cands[i]:
			work = append(work, i)
		default:
			verdicts[i].done = true
		}
	}
	out.Index.Unindexed = unindexed + len(unknown)
	if len(unknown) > 0 {
		out.Index.Building = r.sv.buildInBackground(r.sv.repo(r.snap.Workspace()), r.blobs, unknown)
	}
	return work
}

// errBudget ends matching when the time budget is spent.
var errBudget = errors.New("search time budget spent")

// match reads and matches the files work lists, in parallel, each blob
// once, in path order, until done or the time budget is spent.
func (r *run) match(ctx context.Context, req *server.Request, work []int) error {
	budget := r.sv.opts.TimeBudget
	if d, ok := ctx.Deadline(); ok {
		// Leave a tenth of the call's time to render the page.
		budget = min(budget, time.Until(d)*9/10)
	}
	bctx, cancel := context.WithTimeoutCause(ctx, budget, errBudget)
	defer cancel()
	return r.matchAll(ctx, bctx, work, newProgress(r.sv, req, len(work)))
}

// matchAll matches the files work lists under bctx, a context of ctx
// that the time budget may end early. Files with the same blob are
// matched once. Blobs in the content cache are matched first; the others
// are read in bulk.
func (r *run) matchAll(ctx, bctx context.Context, work []int, progress *progress) error {
	canon := r.canonical()
	owner := make([]int32, len(r.files)) // per canonical file, 1 + the file of work matched for it
	var same [][2]int                    // (duplicate, original)
	var disk []int
	blobs, keys := make([]int, 0, len(work)), make([]textindex.Blob, 0, len(work))
	for _, i := range work {
		f := r.files[i]
		if f.sha == "" {
			disk = append(disk, i)
			continue
		}
		if o := owner[canon[i]]; o > 0 {
			same = append(same, [2]int{i, int(o - 1)})
			continue
		}
		owner[canon[i]] = int32(i + 1)
		blobs, keys = append(blobs, i), append(keys, f.blob)
	}
	data := r.sv.content.lookup(keys)
	cached, cachedData := make([]int, 0, len(blobs)), make([][]byte, 0, len(blobs))
	var uncached []int
	for k, i := range blobs {
		if data[k] != nil {
			cached, cachedData = append(cached, i), append(cachedData, data[k])
		} else {
			uncached = append(uncached, i)
		}
	}
	err := r.matchCached(bctx, cached, cachedData, progress)
	if err == nil {
		err = r.matchFrom(bctx, r.blobs, uncached, progress)
	}
	if err == nil {
		err = r.matchFrom(bctx, r.snap, disk, progress)
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr // the call itself ended
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, errBudget) {
		return err
	}
	for _, p := range same {
		r.verdicts[p[0]] = r.verdicts[p[1]]
	}
	return nil
}

// canonical returns, per file, the first file of r.files with the same
// blob (itself when none is before it): the listing's, when r.files is
// all of one.
func (r *run) canonical() []int32 {
	if r.listing != nil {
		return r.listing.canon
	}
	return canonicalFiles(r.files)
}

func canonicalFiles(files []fileRef) []int32 {
	first := make(map[textindex.Blob]int32, len(files))
	canon := make([]int32, len(files))
	for i, f := range files {
		canon[i] = int32(i)
		if f.sha == "" {
			continue
		}
		if j, ok := first[f.blob]; ok {
			canon[i] = j
		} else {
			first[f.blob] = int32(i)
		}
	}
	return canon
}

// matchCached matches files whose contents data holds, on the service's
// workers, each taking the next file as it is free.
func (r *run) matchCached(ctx context.Context, todo []int, data [][]byte, progress *progress) error {
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range min(r.sv.opts.Workers, len(todo)) {
		g.Go(func() error {
			for k := int(next.Add(1) - 1); k < len(todo); k = int(next.Add(1) - 1) {
				if gctx.Err() != nil {
					return context.Cause(gctx)
				}
				i := todo[k]
				r.judge(i, data[k], r.files[i].size, progress)
			}
			return nil
		})
	}
	return g.Wait()
}

// matchFrom reads the files todo lists through snap, in bulk.
func (r *run) matchFrom(ctx context.Context, snap *workspace.Snapshot, todo []int, progress *progress) error {
	if len(todo) == 0 {
		return nil
	}
	refs := make([]workspace.BlobRef, len(todo))
	for k, i := range todo {
		refs[k] = workspace.BlobRef{Path: r.files[i].path, SHA: r.files[i].sha}
	}
	worktree := snap.Revision().SHA == workspace.WorktreeRevision
	return snap.ReadBlobs(ctx, refs, r.sv.opts.MaxFileBytes, r.sv.opts.Workers, func(k int, data []byte, size int64, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return context.Cause(ctx)
		}
		i := todo[k]
		switch {
		case err != nil && worktree && errors.Is(err, fs.ErrNotExist):
			r.verdicts[i] = verdict{done: true} // removed from the working tree meanwhile
			return nil
		case err != nil:
			return err
		}
		if data != nil && !worktree {
			r.sv.content.put(r.files[i].blob, data)
		}
		r.judge(i, data, size, progress)
		return nil
	})
}

// judge matches file i's content (nil when over the size bound).
func (r *run) judge(i int, data []byte, size int64, progress *progress) {
	switch {
	case data == nil && size > 0:
		r.verdicts[i] = verdict{done: true, tooLarge: true}
	case textindex.IsBinary(data):
		r.verdicts[i] = verdict{done: true, binary: true}
	default:
		r.verdicts[i] = verdict{done: true, lines: r.m.countLines(data)}
	}
	if progress != nil {
		progress.step()
	}
}
