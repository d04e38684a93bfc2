package workspace

import (
	"context"
	"errors"
	"io/fs"
	"runtime"
	"strings"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// WalkOptions choose what a walk visits.
type WalkOptions struct {
	// Recursive descends into subdirectories; otherwise only the direct
	// children of the directory are visited.
	Recursive bool
	// Pattern, when set, is a [Glob] matched against each entry's path
	// relative to the walked directory ("**/*.go"). Directories that do not
	// match are still descended into when some path below could match.
	Pattern string
	// After resumes a walk just after the entry whose [Entry.Cursor] it is;
	// entries at or before it are skipped without reading their subtrees.
	After string
	// Sizes fills in Entry.Size for files in a commit (it costs one object
	// header read per file). Worktree entries always have sizes.
	Sizes bool
}

// WalkStats counts what a walk left out, in the part it walked.
type WalkStats struct {
	// Omitted counts entries withheld by the secret patterns or the
	// caller's policies (a withheld directory counts once; its contents are
	// not looked at).
	Omitted int
	// Invalid counts entries whose names cannot be shown (hostile names
	// such as ".GIT", names with control characters or backslashes) and,
	// in the working tree, FIFOs, sockets and devices.
	Invalid int
}

// Walk visits the entries under directory dir in a deterministic order:
// paths sorted bytewise, with a directory's path compared as if it ended
// in "/", and every directory before its contents (git's tree order). fn
// may return [fs.SkipAll] to stop early, or [fs.SkipDir] on a directory to
// skip its contents; any other error ends the walk and is returned.
//
// Symlinks and submodules are reported, never followed. Entries denied to
// the caller are left out and counted in the returned stats.
func (s *Snapshot) Walk(ctx context.Context, dir string, opts WalkOptions, fn func(Entry) error) (WalkStats, error) {
	var stats WalkStats
	root, err := s.Stat(ctx, dir)
	if err != nil {
		return stats, err
	}
	if root.Type != TypeDir {
		return stats, errclass.Errorf(errclass.InvalidInput, "path %s is a %s, not a directory", quoteInput(root.Path), root.Type)
	}
	w := &walker{s: s, opts: opts, fn: fn, stats: &stats, base: root.Path, policed: s.grant.restrictsPaths()}
	if opts.Pattern != "" {
		g, err := ParseGlob(opts.Pattern)
		if err != nil {
			return stats, errclass.Errorf(errclass.InvalidInput, "pattern: %v", err)
		}
		w.pattern = &g
	}
	if opts.After != "" {
		w.after = opts.After
	}
	depth := len(splitPath(root.Path))
	// With one P the workers would only take turns.
	if src, ok := s.src.(prefetchingSource); ok && opts.Recursive && opts.Pattern == "" && opts.After == "" && runtime.GOMAXPROCS(0) > 1 {
		src.prefetch(ctx, root, depth, opts.Sizes, &w.session)
	}
	err = w.walk(ctx, root, depth)
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return stats, err
}

type walker struct {
	s       *Snapshot
	opts    WalkOptions
	fn      func(Entry) error
	stats   *WalkStats
	base    string // the walked directory
	pattern *Glob
	after   string
	// policed is set when the caller's policies may withhold paths; when
	// one of them allows every path, only the deny patterns are consulted.
	policed bool
	session listSession
}

// cachingSource is a source that keeps its listings, judged by the
// workspace's deny patterns, across walks.
type cachingSource interface {
	listing(dir Entry, sizes bool, sess *listSession) (*dirListing, error)
}

// prefetchingSource is a cachingSource that can read a whole tree's
// listings into its cache ahead of a walk (listprefetch.go).
type prefetchingSource interface {
	prefetch(ctx context.Context, root Entry, depth int, sizes bool, sess *listSession)
}

// children lists directory dir, with the deny patterns' verdicts.
func (w *walker) children(ctx context.Context, dir Entry) (*dirListing, error) {
	if src, ok := w.s.src.(cachingSource); ok {
		return src.listing(dir, w.opts.Sizes, &w.session)
	}
	entries, invalid, err := w.s.src.list(ctx, dir, w.opts.Sizes)
	if err != nil {
		return nil, err
	}
	l := &dirListing{entries: entries, denied: make([]bool, len(entries)), invalid: invalid, sized: w.opts.Sizes}
	for i, e := range entries {
		_, l.denied[i] = w.s.grant.ws.deny.matchEntry(e.Path)
	}
	return l, nil
}

// walk visits the children of dir, which is depth components deep.
func (w *walker) walk(ctx context.Context, dir Entry, depth int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l, err := w.children(ctx, dir)
	if err != nil {
		return err
	}
	w.stats.Invalid += l.invalid
	if depth+1 > MaxPathComponents {
		// Deeper paths could not be named by a caller: report them as
		// invalid rather than recurse without bound.
		w.stats.Invalid += len(l.entries)
		return nil
	}
	for i := range l.entries {
		e := l.entries[i]
		if len(e.Path) > MaxPathBytes {
			w.stats.Invalid++
			continue
		}
		if e.Type == TypeFile && !w.opts.Sizes {
			e.Size = -1 // the listing may be a cached one with sizes
		}
		isDir := e.Type == TypeDir
		descend := isDir && w.opts.Recursive
		// Hidden entries are decided first: a cursor pointing inside a
		// denied directory must not lead the walk into it.
		hidden := l.denied[i] || w.policed && w.s.grant.policyHides(e.Path, isDir)
		if w.after != "" {
			if done, inside := passed(e, w.after); done {
				if !hidden && descend && inside {
					if err := w.walk(ctx, e, depth+1); err != nil {
						return err
					}
				}
				continue
			}
		}
		if hidden {
			w.stats.Omitted++
			continue
		}
		rel := w.relative(e.Path)
		if w.pattern == nil || w.pattern.Match(rel) {
			switch err := w.fn(e); {
			case errors.Is(err, fs.SkipDir) && isDir:
				continue
			case err != nil:
				return err
			}
		}
		if descend && (w.pattern == nil || w.pattern.MatchPrefix(rel)) {
			if err := w.walk(ctx, e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// passed compares e.Cursor() with a cursor after without building it:
// done reports e.Cursor() <= after (e is at or before the cursor), inside
// that e.Cursor() is a prefix of after (the cursor lies within directory
// e). Walks call it for every entry up to a cursor.
func passed(e Entry, after string) (done, inside bool) {
	p := e.Path
	if e.Type != TypeDir {
		return p <= after, strings.HasPrefix(after, p)
	}
	// The cursor of a directory is p + "/".
	n := len(p)
	if len(after) <= n || after[:n] != p {
		return p < after[:min(n, len(after))], false
	}
	switch c := after[n]; {
	case c == '/':
		return true, true
	default:
		return c > '/', false
	}
}

func (w *walker) relative(p string) string {
	if w.base == "" {
		return p
	}
	return p[len(w.base)+1:]
}

// ReadDir returns the direct children of directory dir that the caller may
// see, in walk order, with sizes.
func (s *Snapshot) ReadDir(ctx context.Context, dir string) ([]Entry, WalkStats, error) {
	var entries []Entry
	stats, err := s.Walk(ctx, dir, WalkOptions{Sizes: true}, func(e Entry) error {
		entries = append(entries, e)
		return nil
	})
	return entries, stats, err
}

// Listing limits.
const (
	DefaultListLimit = 1000
	MaxListLimit     = 10000
)

// ListOptions choose one page of a listing.
type ListOptions struct {
	Recursive bool
	Pattern   string // as in WalkOptions
	Sizes     bool   // as in WalkOptions
	// After is the Next of the previous page ("" for the first page).
	After string
	// Limit bounds the page: 0 means DefaultListLimit; at most MaxListLimit.
	Limit int
}

// Page is one page of a listing.
type Page struct {
	Entries []Entry
	// Total counts the entries of the whole listing (every page).
	Total int
	// Truncated is set when entries follow this page; Next is then the
	// After of the next page.
	Truncated bool
	Next      string
	// WalkStats counts what the whole listing left out.
	WalkStats
}

// List returns one page of the entries under dir, with totals for the
// whole listing. It walks the whole listing to count it (a warm walk of a
// large repository takes milliseconds); callers that do not need totals can
// use Walk with WalkOptions.After instead.
func (s *Snapshot) List(ctx context.Context, dir string, opts ListOptions) (Page, error) {
	limit := opts.Limit
	switch {
	case limit < 0:
		return Page{}, errclass.Errorf(errclass.InvalidInput, "limit must not be negative")
	case limit == 0:
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	// A page is usually full (a listing's pages are all full but the
	// last), so its room is taken at once rather than grown step by step.
	page := Page{Entries: make([]Entry, 0, limit)}
	stats, err := s.Walk(ctx, dir, WalkOptions{Recursive: opts.Recursive, Pattern: opts.Pattern, Sizes: opts.Sizes},
		func(e Entry) error {
			page.Total++
			if opts.After != "" {
				if done, _ := passed(e, opts.After); done {
					return nil
				}
			}
			if len(page.Entries) == limit {
				page.Truncated = true
				return nil
			}
			page.Entries = append(page.Entries, e)
			return nil
		})
	if err != nil {
		return Page{}, err
	}
	page.WalkStats = stats
	if page.Truncated {
		page.Next = page.Entries[len(page.Entries)-1].Cursor()
	}
	return page, nil
}
