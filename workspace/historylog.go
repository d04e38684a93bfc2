package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// LogOptions select the commits of a log, as git log's options do.
type LogOptions struct {
	// Path limits the log to commits that changed a file or directory,
	// with git's default history simplification: a merge that took the
	// path from one parent is not shown, and only that parent is walked.
	Path string
	// Follow follows a single file's renames (git log --follow).
	Follow bool
	// Since and Until bound the committer time (zero: unbounded). As in
	// git, the walk does not go past a commit older than Since.
	Since, Until time.Time
	// Author keeps commits whose author "Name <email>" contains it.
	Author string
	// Message keeps commits whose message matches.
	Message *regexp.Regexp
	// ContentAdded and ContentRemoved keep commits in which the number
	// of occurrences of the string in some file grew, or shrank (git log
	// -S, split by direction). Both set: either.
	ContentAdded, ContentRemoved string
	// ContentRegex keeps commits whose diff adds or removes a line
	// matching it (git log -G).
	ContentRegex *regexp.Regexp
	FirstParent  bool
	// Merges is "" (all commits), "only" or "none".
	Merges string
	// Files asks for each commit's changed files with line counts (not
	// for merges, as git log --stat).
	Files bool
	// HideEmails leaves emails out of results and out of Author matching.
	HideEmails bool
	// Skip is how many matching commits to pass over (a cursor's
	// position); Limit how many to return.
	Skip, Limit int
}

// LogEntry is one commit of a log.
type LogEntry struct {
	CommitInfo
	// Files are the changed files the caller may see (when asked), with
	// Path as the log's path filter leaves them.
	Files []ChangedFile
}

// LogPage is a page of a log.
type LogPage struct {
	Entries []LogEntry
	// More says more commits match after these.
	More bool
}

// MaxLogPage bounds LogOptions.Limit.
const MaxLogPage = 1000

// logResult is a walk's outcome, cached by query: the matching commits
// found so far, in order, and whether the walk ended.
type logResult struct {
	matched []plumbing.Hash
	done    bool
}

// History returns a page of the commits reachable from the snapshot's
// commit (HEAD for the working tree) that match opts, newest committer
// time first, as git log orders them.
func (s *Snapshot) History(ctx context.Context, opts LogOptions) (LogPage, error) {
	opts.Limit = min(max(opts.Limit, 1), MaxLogPage)
	start, err := s.historyStart()
	if err != nil {
		return LogPage{}, err
	}
	f, err := s.diffFilter(opts.Path)
	if err != nil {
		return LogPage{}, err
	}
	if opts.Follow {
		if err := s.checkFollow(ctx, f.spec); err != nil {
			return LogPage{}, err
		}
	}
	ws := s.grant.ws
	r := ws.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	key := s.logKey(start, opts)
	need := opts.Skip + opts.Limit + 1
	hc := r.historyLocked()
	res, ok := hc.logs[key]
	if !ok || (!res.done && len(res.matched) < need) {
		w := &logWalk{r: r, walk: ws.newCommitWalkLocked(), opts: opts, filter: f, follow: f.spec, ctx: ctx, bloom: r.bloomLocked()}
		if res, err = w.run(start, need); err != nil {
			return LogPage{}, s.historyError(err)
		}
		if len(hc.logs) >= maxCachedLogs {
			clear(hc.logs)
		}
		hc.logs[key] = res
	}
	var page LogPage
	for i := opts.Skip; i < len(res.matched) && i < opts.Skip+opts.Limit; i++ {
		e, err := s.logEntryLocked(ctx, res.matched[i], opts, f)
		if err != nil {
			return LogPage{}, s.historyError(err)
		}
		page.Entries = append(page.Entries, e)
	}
	page.More = len(res.matched) > opts.Skip+opts.Limit
	return page, nil
}

// historyStart is the commit a log starts from.
func (s *Snapshot) historyStart() (plumbing.Hash, error) {
	if s.rev.SHA != WorktreeRevision {
		return plumbing.NewHash(s.rev.SHA), nil
	}
	head, err := s.Head()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if head.SHA == "" {
		return plumbing.ZeroHash, errclass.Errorf(errclass.NotFound, "the repository has no commits")
	}
	return plumbing.NewHash(head.SHA), nil
}

// checkFollow refuses to follow anything but one file at the start.
func (s *Snapshot) checkFollow(ctx context.Context, p string) error {
	if p == "" {
		return errclass.Errorf(errclass.InvalidInput, "follow needs a path: the file whose renames to follow")
	}
	e, err := s.Stat(ctx, p)
	if err != nil {
		return err
	}
	if e.Type == TypeDir {
		return errclass.Errorf(errclass.InvalidInput, "follow follows a single file; %s is a directory", quoteInput(p))
	}
	return nil
}

func (s *Snapshot) historyError(err error) error {
	var se *errclass.Error
	if errors.As(err, &se) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return s.grant.ws.internalError("reading history", err)
}

// logKey identifies a walk: its start, every option that decides which
// commits match, and who asks (the caller's policy decides what a path
// filter sees).
func (s *Snapshot) logKey(start plumbing.Hash, o LogOptions) string {
	re := func(r *regexp.Regexp) string {
		if r == nil {
			return ""
		}
		return r.String()
	}
	return strings.Join([]string{
		start.String(), s.grant.access.Identity, string(s.grant.access.Action),
		o.Path, fmt.Sprint(o.Follow, o.FirstParent, o.HideEmails), o.Merges,
		o.Since.String(), o.Until.String(), o.Author, re(o.Message),
		o.ContentAdded, o.ContentRemoved, re(o.ContentRegex),
	}, "\x00")
}

// logEntryLocked describes one commit of a page. r.mu must be held.
func (s *Snapshot) logEntryLocked(ctx context.Context, h plumbing.Hash, opts LogOptions, f pathFilter) (LogEntry, error) {
	r := s.grant.ws.repo
	c, err := r.commitObjectLocked(h)
	if err != nil {
		return LogEntry{}, err
	}
	e := LogEntry{CommitInfo: infoOf(c, opts.HideEmails)}
	if opts.Files && len(c.ParentHashes) <= 1 {
		key := s.changesKey(h, f.spec)
		files, ok := r.historyLocked().changes[key]
		if !ok {
			raw, err := r.commitChangesLocked(c, f)
			if err != nil {
				return LogEntry{}, err
			}
			if files, err = r.fileChangesLocked(ctx, raw, true); err != nil {
				return LogEntry{}, err
			}
			hc := r.historyLocked()
			if len(hc.changes) >= maxCachedChanges {
				clear(hc.changes)
			}
			hc.changes[key] = files
		}
		e.Files = files
	}
	return e, nil
}

func (s *Snapshot) changesKey(h plumbing.Hash, spec string) string {
	return h.String() + "\x00" + s.grant.access.Identity + "\x00" + string(s.grant.access.Action) + "\x00" + spec
}

// commitChangesLocked is a commit's diff against its first parent (the
// empty tree for a root commit), renames paired. r.mu must be held.
func (r *repo) commitChangesLocked(c *object.Commit, f pathFilter) ([]rawChange, error) {
	var parentTree plumbing.Hash
	if len(c.ParentHashes) > 0 {
		pn, err := r.nodeLocked(c.ParentHashes[0])
		if err != nil {
			return nil, err
		}
		parentTree = pn.tree
	}
	raw, err := r.treeDiffLocked(parentTree, c.TreeHash, "", f, nil)
	if err != nil {
		return nil, err
	}
	return r.pairRenamesLocked(raw)
}

// logWalk is one walk of the commit graph in git log's order: a queue by
// committer time (ties first in, first out), each commit's parents queued
// when it is taken out.
type logWalk struct {
	ctx    context.Context
	r      *repo
	walk   *commitWalk
	opts   LogOptions
	filter pathFilter
	follow string // the followed file's current name
	// bloom are the commit-graph's changed-path filters (nil: none),
	// asked about the path (the followed name, with follow) before a
	// first parent's tree diff; bloomQ is that path's query.
	bloom  *bloomFilters
	bloomQ *bloomQuery
}

func (w *logWalk) run(start plumbing.Hash, need int) (logResult, error) {
	if err := w.walk.pushLocked(start); err != nil {
		return logResult{}, err
	}
	var res logResult
	for i := 0; ; i++ {
		if i%256 == 0 {
			if err := w.ctx.Err(); err != nil {
				return logResult{}, err
			}
		}
		n, more := w.walk.pop()
		if !more {
			break
		}
		ok, err := w.step(n)
		if err != nil {
			return logResult{}, err
		}
		if ok {
			res.matched = append(res.matched, n.hash)
			if len(res.matched) >= need {
				return res, nil
			}
		}
	}
	res.done = true
	return res, nil
}

// step queues a commit's parents and reports whether it is shown.
func (w *logWalk) step(n commitNode) (bool, error) {
	o := &w.opts
	if !o.Since.IsZero() && n.when < o.Since.Unix() {
		return false, nil
	}
	parents := n.parents
	if o.FirstParent && len(parents) > 1 {
		parents = parents[:1]
	}
	show := true
	if w.filter.spec != "" {
		var err error
		if parents, show, err = w.simplify(n, parents); err != nil {
			return false, err
		}
	}
	for _, p := range parents {
		if err := w.walk.pushLocked(p); err != nil {
			return false, err
		}
	}
	if !show || !o.Until.IsZero() && n.when > o.Until.Unix() {
		return false, nil
	}
	return w.matches(n)
}

// simplify is git's try_to_simplify_commit for the path filter: a commit
// whose path equals a parent's is not shown, and a merge then follows only
// the first such parent. With follow, a commit that adds the followed file
// is searched for a rename, whose source becomes the followed name.
func (w *logWalk) simplify(c commitNode, parents []plumbing.Hash) ([]plumbing.Hash, bool, error) {
	f := w.filter
	if w.opts.Follow {
		f.spec = w.follow
	}
	if len(parents) == 0 {
		has, err := w.r.treeHasLocked(c.tree, f)
		return parents, has, err
	}
	if w.unchangedByFilter(c, f.spec) {
		return parents[:1], false, nil
	}
	for i, p := range parents {
		pc, err := w.r.nodeLocked(p)
		if err != nil {
			return nil, false, err
		}
		changes, err := w.r.treeDiffLocked(pc.tree, c.tree, "", f, nil)
		if err != nil {
			return nil, false, err
		}
		if len(changes) == 0 {
			return parents[i : i+1], false, nil
		}
		if w.opts.Follow && i == 0 && len(changes) == 1 && changes[0].from.path == "" {
			if err := w.followRename(pc.tree, c.tree); err != nil {
				return nil, false, err
			}
		}
	}
	return parents, true, nil
}

// unchangedByFilter reports whether the commit's changed-path filter
// proves that its diff against its first parent leaves path alone: the
// diff would be empty, so the commit is not shown and only that parent is
// walked, as the diff would decide. Without a filter it reports false.
func (w *logWalk) unchangedByFilter(c commitNode, path string) bool {
	if !c.inGraph || w.bloom == nil {
		return false
	}
	if w.bloomQ == nil || w.bloomQ.paths[0] != path {
		w.bloomQ = newBloomQuery(path)
	}
	return w.bloomQ != nil && !w.bloomQ.maybeChanged(w.bloom, c.graphPos)
}

// followRename looks for the file the followed one was renamed from.
func (w *logWalk) followRename(parentTree, tree plumbing.Hash) error {
	all, err := w.r.treeDiffLocked(parentTree, tree, "", pathFilter{grant: w.filter.grant}, nil)
	if err != nil {
		return err
	}
	paired, err := w.r.pairRenamesLocked(all)
	if err != nil {
		return err
	}
	for _, ch := range paired {
		if ch.to.path == w.follow && ch.from.path != "" && ch.from.path != ch.to.path {
			w.follow = ch.from.path
			return nil
		}
	}
	return nil
}

// matches applies the filters that do not change the walk.
func (w *logWalk) matches(n commitNode) (bool, error) {
	o := &w.opts
	merge := len(n.parents) > 1
	if o.Merges == "only" && !merge || o.Merges == "none" && merge {
		return false, nil
	}
	pickaxe := o.ContentAdded != "" || o.ContentRemoved != "" || o.ContentRegex != nil
	if o.Author == "" && o.Message == nil && !pickaxe && !(merge && o.Follow) {
		return true, nil // the commit graph had all it takes
	}
	c, err := w.r.commitObjectLocked(n.hash)
	if err != nil {
		return false, err
	}
	switch {
	case o.Author != "" && !strings.Contains(authorLine(c, o.HideEmails), o.Author):
		return false, nil
	case o.Message != nil && !o.Message.MatchString(c.Message):
		return false, nil
	}
	if merge && (pickaxe || o.Follow) {
		// git log shows no diff for a merge, and with pickaxe or follow
		// shows only commits whose diff it shows.
		return false, nil
	}
	if !pickaxe {
		return true, nil
	}
	f := w.filter
	if o.Follow {
		f.spec = w.follow
	}
	changes, err := w.r.commitChangesLocked(c, f)
	if err != nil {
		return false, err
	}
	for _, ch := range changes {
		ok, err := w.pickaxe(ch)
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

func authorLine(c *object.Commit, hideEmails bool) string {
	if hideEmails {
		return c.Author.Name
	}
	return c.Author.Name + " <" + c.Author.Email + ">"
}

// pickaxe reports whether one file's change matches the content filters.
func (w *logWalk) pickaxe(ch rawChange) (bool, error) {
	if ch.from.hash == ch.to.hash {
		return false, nil
	}
	a, b, ok, err := w.r.contentsLocked(ch)
	if err != nil || !ok {
		return false, err
	}
	o := &w.opts
	for _, needle := range []string{o.ContentAdded, o.ContentRemoved} {
		if needle == "" {
			continue
		}
		na, nb := bytes.Count(a, []byte(needle)), bytes.Count(b, []byte(needle))
		if needle == o.ContentAdded && nb > na || needle == o.ContentRemoved && nb < na {
			return true, nil
		}
	}
	if o.ContentRegex == nil || isBinary(a) || isBinary(b) {
		return false, nil
	}
	d := diffLines(a, b)
	for i, line := range d.a {
		if d.delA[i] && o.ContentRegex.Match(bytes.TrimSuffix(line, []byte("\n"))) {
			return true, nil
		}
	}
	for i, line := range d.b {
		if d.addB[i] && o.ContentRegex.Match(bytes.TrimSuffix(line, []byte("\n"))) {
			return true, nil
		}
	}
	return false, nil
}
