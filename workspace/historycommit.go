package workspace

import (
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
	c, err := object.GetCommit(r.storage, h)
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
