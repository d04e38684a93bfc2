package searchtext

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// fileRef is a file of the revision searched.
type fileRef struct {
	path string
	sha  string // "" in the working tree
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
	sv    *Service
	snap  *workspace.Snapshot
	rs    *repoState // nil in the working tree
	m     *matcher
	key   string // the search's arguments and commit, for cursors
	cur   cursor // where the page starts, when the call gave a cursor
	files []fileRef
	// verdicts are per file, once matched (or ruled out by the index).
	verdicts []verdict
}

// read returns a file's content, or nil when it is now over the bound
// (the working tree changed since the listing).
func (r *run) read(ctx context.Context, f fileRef) ([]byte, error) {
	max := r.sv.opts.MaxFileBytes
	if r.rs != nil {
		return r.sv.readBlob(ctx, r.rs, f.blob)
	}
	file, err := r.snap.ReadFile(ctx, f.path, workspace.ReadOptions{Limit: max})
	if err != nil || file.Truncated {
		return nil, err
	}
	return file.Data, nil
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
	r := &run{sv: sv, snap: snap, m: m, key: searchKey(rev, in)}
	if in.Cursor != "" {
		if r.cur, err = decodeCursor(in.Cursor, r.key); err != nil {
			return nil, nil, err
		}
	}
	files, tooLarge, err := listFiles(ctx, snap, filter, sv.opts.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	r.files = files
	if rev != workspace.WorktreeRevision {
		if r.rs, err = sv.repo(snap.Workspace()); err != nil {
			return nil, nil, err
		}
	}
	out := &SearchTextOut{Revision: rev, Skipped: Skipped{TooLarge: tooLarge, MaxFileBytes: sv.opts.MaxFileBytes}}
	out.Index.Files = len(files)
	r.verdicts = make([]verdict, len(files))
	work := r.plan(out)
	out.Index.Candidates = len(work)
	if err := r.match(ctx, req, work); err != nil {
		return nil, nil, err
	}
	out.Complete = true
	for _, i := range work {
		if !r.verdicts[i].done {
			out.Complete = false
		}
	}
	for _, v := range r.verdicts {
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

// plan asks the index which files may match and returns the indexes of
// files to read and match; it marks the others done (and binary ones
// binary). Blobs the index does not know are read, and indexed in the
// background for later searches.
func (r *run) plan(out *SearchTextOut) []int {
	verdicts := r.verdicts
	var work []int
	if r.snap.Revision().SHA == workspace.WorktreeRevision {
		// The working tree has no blob ids before a read: every file is
		// scanned.
		out.Index.Unindexed = len(r.files)
		for i := range r.files {
			work = append(work, i)
		}
		return work
	}
	blobs := blobsOf(r.files)
	status := r.sv.ix.Lookup(blobs)
	cands := r.sv.ix.Candidates(r.m.plan, blobs)
	var unknown []textindex.Blob
	for i := range r.files {
		switch {
		case status[i] == textindex.Binary:
			verdicts[i] = verdict{done: true, binary: true}
		case status[i] == textindex.Unknown:
			unknown = append(unknown, blobs[i])
			work = append(work, i)
		case cands[i]:
			work = append(work, i)
		default:
			verdicts[i].done = true
		}
	}
	out.Index.Unindexed = len(unknown)
	if len(unknown) > 0 {
		out.Index.Building = r.sv.buildInBackground(r.rs, r.snap.Workspace().ID(), unknown)
	}
	return work
}

// errBudget ends matching when the time budget is spent.
var errBudget = errors.New("search time budget spent")

// match reads and matches the files work lists, in parallel, each blob
// once, until done or the time budget is spent.
func (r *run) match(ctx context.Context, req *server.Request, work []int) error {
	verdicts := r.verdicts
	budget := r.sv.opts.TimeBudget
	if d, ok := ctx.Deadline(); ok {
		// Leave a tenth of the call's time to render the page.
		budget = min(budget, time.Until(d)*9/10)
	}
	bctx, cancel := context.WithTimeoutCause(ctx, budget, errBudget)
	defer cancel()

	// Files with the same blob are matched once.
	first := make(map[textindex.Blob]int)
	var same [][2]int // (duplicate, original)
	var todo []int
	for _, i := range work {
		f := r.files[i]
		if f.sha != "" {
			if j, ok := first[f.blob]; ok {
				same = append(same, [2]int{i, j})
				continue
			}
			first[f.blob] = i
		}
		todo = append(todo, i)
	}
	progress := newProgress(r.sv, req, len(todo))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range r.sv.opts.Workers {
		wg.Go(func() {
			for i := range jobs {
				v, err := r.matchFile(bctx, r.files[i])
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					continue
				}
				verdicts[i] = v
				progress.step()
			}
		})
	}
feed:
	for _, i := range todo {
		select {
		case jobs <- i:
		case <-bctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err // the call itself ended
	}
	if firstErr != nil && !errors.Is(firstErr, context.DeadlineExceeded) && !errors.Is(firstErr, errBudget) {
		return firstErr
	}
	for _, p := range same {
		verdicts[p[0]] = verdicts[p[1]]
	}
	return nil
}

func cmpErr(have, err error) error {
	if have != nil {
		return have
	}
	return err
}

// matchFile reads and matches one file.
func (r *run) matchFile(ctx context.Context, f fileRef) (verdict, error) {
	if err := ctx.Err(); err != nil {
		return verdict{}, context.Cause(ctx)
	}
	data, err := r.read(ctx, f)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && r.rs == nil {
			return verdict{done: true}, nil // removed from the working tree meanwhile
		}
		return verdict{}, err
	}
	switch {
	case data == nil && f.size > 0:
		return verdict{done: true, tooLarge: true}, nil
	case textindex.IsBinary(data):
		return verdict{done: true, binary: true}, nil
	}
	return verdict{done: true, lines: r.m.countLines(data)}, nil
}
