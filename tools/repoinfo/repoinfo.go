// Package repoinfo provides repo_info: what a repository is, at a glance,
// for a caller about to work in it. It is read-only, needs the read action,
// and never reveals where the repository lives on the host.
//
//	err := repoinfo.Register(s, reg, repoinfo.Options{})
package repoinfo

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

const (
	maxRefs      = 100
	recentCount  = 20
	topLanguages = 10
)

// RepoInfoIn is what repo_info takes.
type RepoInfoIn struct {
	toolkit.Target
}

// RepoInfoOut describes a repository at a revision.
type RepoInfoOut struct {
	// Revision is the full commit SHA described, or "worktree".
	Revision string `json:"revision"`
	// Head is what HEAD points at.
	Head Head `json:"head"`
	// DefaultBranch is the branch HEAD is attached to, or "" when HEAD is detached.
	DefaultBranch string `json:"default_branch"`
	// Branches are the repository's branches, at most 100.
	Branches []Ref `json:"branches"`
	// Tags are the repository's tags (annotated tags peeled to their commit), at most 100.
	Tags []Ref `json:"tags"`
	// TotalBranches counts all branches the caller may see.
	TotalBranches int `json:"total_branches"`
	// TotalTags counts all tags the caller may see.
	TotalTags int `json:"total_tags"`
	// RefsTruncated says more branches or tags exist than are listed.
	RefsTruncated bool `json:"refs_truncated"`
	// RecentCommits are the last 20 commits reachable from the revision, newest first.
	RecentCommits []Commit `json:"recent_commits"`
	// Shallow says the repository is a shallow clone: its history stops where parents were not fetched, so recent_commits may hold fewer than 20 and older revisions are not_found.
	Shallow bool `json:"shallow"`
	// Worktree says whether the working tree can be read (revision "worktree") and whether tracked files differ from HEAD.
	Worktree Worktree `json:"worktree"`
	// GoModule is the module path declared by go.mod at the root, if any.
	GoModule string `json:"go_module,omitempty"`
	// FileCount is the number of files at the revision the caller may see.
	FileCount int `json:"file_count"`
	// Languages are the most common file extensions, by number of files.
	Languages []Language `json:"languages"`
}

// Head is what HEAD points at.
type Head struct {
	// Ref is the branch HEAD is attached to, or "" when detached.
	Ref string `json:"ref"`
	// SHA is the commit HEAD resolves to.
	SHA string `json:"sha"`
}

// Ref is a branch or tag.
type Ref struct {
	// Name is the full ref name, such as refs/heads/main.
	Name string `json:"name"`
	// SHA is the commit it names.
	SHA string `json:"sha"`
}

// Commit summarizes one commit.
type Commit struct {
	SHA     string    `json:"sha"`
	Author  string    `json:"author"`
	Time    time.Time `json:"time"`
	Subject string    `json:"subject"`
}

// Worktree describes the working tree.
type Worktree struct {
	// Readable says the revision "worktree" may be read in this workspace.
	Readable bool `json:"readable"`
	// Dirty says tracked files differ from HEAD; absent when not checked.
	Dirty *bool `json:"dirty,omitempty"`
}

// Language counts the files of one extension.
type Language struct {
	// Extension is the file extension, such as .go, or "" for files without one.
	Extension string `json:"extension"`
	Files     int    `json:"files"`
}

// Text is a short summary; the structured result has the details.
func (o RepoInfoOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "revision %s; HEAD %s", o.Revision, o.Head.SHA)
	if o.Head.Ref != "" {
		fmt.Fprintf(&b, " (%s)", o.Head.Ref)
	}
	fmt.Fprintf(&b, "; %s, %s; %s", toolkit.Count(o.TotalBranches, "branch", "branches"), toolkit.Count(o.TotalTags, "tag", "tags"), toolkit.Count(o.FileCount, "file", "files"))
	if o.GoModule != "" {
		fmt.Fprintf(&b, "; Go module %s", o.GoModule)
	}
	if len(o.RecentCommits) > 0 {
		c := o.RecentCommits[0]
		fmt.Fprintf(&b, "\nlatest commit %s by %s: %q", c.SHA[:min(12, len(c.SHA))], c.Author, c.Subject)
	}
	return b.String()
}

// Options configure repo_info. It has none yet: the parameter keeps the
// Register of every tool family in one shape (see [toolkit.Family]).
type Options struct{}

// Register adds repo_info, of family read, to s, reading through reg.
func Register(s *server.Server, reg *workspace.Registry, _ Options) error {
	return server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound},
		Name:   "repo_info",
		Title:  "Repository overview",
		Description: "Describe a repository at a revision (default HEAD): the resolved commit, HEAD and the default branch, " +
			"branches and tags (bounded), the last 20 commits, whether the working tree is readable and dirty, the Go module " +
			"path, the number of files and the most common file extensions.",
		Effect:   server.ReadOnly,
		Family:   string(toolkit.FamilyRead),
		Action:   string(workspace.ActionRead),
		Comments: toolkit.Comments(goComments()),
	}, func(ctx context.Context, req *server.Request, in RepoInfoIn) (RepoInfoOut, error) {
		return repoInfo(ctx, reg, req, in)
	})
}

func repoInfo(ctx context.Context, reg *workspace.Registry, req *server.Request, in RepoInfoIn) (RepoInfoOut, error) {
	snap, err := toolkit.Snapshot(ctx, reg, req, in.Target)
	if err != nil {
		return RepoInfoOut{}, err
	}
	out := RepoInfoOut{Revision: snap.Revision().SHA, DefaultBranch: snap.DefaultBranch()}
	head, err := snap.Head()
	if err != nil {
		return RepoInfoOut{}, err
	}
	out.Head = Head(head)
	// An apply that died between moving a branch and recording it is
	// recorded before the branches are listed (workspace/intents.go).
	if _, err := snap.Workspace().Records().SettleIntents(time.Now()); err != nil {
		return RepoInfoOut{}, err
	}
	refs, err := snap.Refs(maxRefs)
	if err != nil {
		return RepoInfoOut{}, err
	}
	out.Branches, out.Tags = convertRefs(refs.Branches), convertRefs(refs.Tags)
	out.TotalBranches, out.TotalTags, out.RefsTruncated = refs.TotalBranches, refs.TotalTags, refs.Truncated
	commits, err := snap.Log(recentCount)
	if err != nil {
		return RepoInfoOut{}, err
	}
	out.RecentCommits = make([]Commit, 0, len(commits))
	for _, c := range commits {
		out.RecentCommits = append(out.RecentCommits, Commit{SHA: c.SHA, Author: c.Author, Time: c.Time.UTC(), Subject: c.Subject})
	}
	if out.Shallow, err = snap.Workspace().Shallow(); err != nil {
		return RepoInfoOut{}, err
	}
	out.Worktree.Readable = snap.Workspace().WorktreeReadable()
	if dirty, checked, err := snap.WorktreeDirty(ctx); err == nil && checked {
		out.Worktree.Dirty = &dirty
	}
	out.GoModule = goModule(ctx, snap)
	out.FileCount, out.Languages, err = census(ctx, snap)
	if err != nil {
		return RepoInfoOut{}, err
	}
	return out, nil
}

func convertRefs(refs []workspace.Ref) []Ref {
	out := make([]Ref, 0, len(refs))
	for _, r := range refs {
		out = append(out, Ref(r))
	}
	return out
}

// goModule returns the module path of go.mod at the root, or "" when there
// is none the caller may read.
func goModule(ctx context.Context, snap *workspace.Snapshot) string {
	f, err := snap.ReadFile(ctx, "go.mod", workspace.ReadOptions{Limit: 64 << 10})
	if err != nil || f.Type != workspace.TypeFile {
		return ""
	}
	return modfile.ModulePath(f.Data)
}

// census counts the files the caller may see, by extension.
func census(ctx context.Context, snap *workspace.Snapshot) (int, []Language, error) {
	counts := make(map[string]int)
	files := 0
	_, err := snap.Walk(ctx, "", workspace.WalkOptions{Recursive: true}, func(e workspace.Entry) error {
		if e.Type == workspace.TypeFile {
			files++
			counts[strings.ToLower(path.Ext(e.Path))]++
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	langs := make([]Language, 0, len(counts))
	for ext, n := range counts {
		langs = append(langs, Language{Extension: ext, Files: n})
	}
	slices.SortFunc(langs, func(a, b Language) int {
		return cmp.Or(cmp.Compare(b.Files, a.Files), strings.Compare(a.Extension, b.Extension))
	})
	return files, langs[:min(len(langs), topLanguages)], nil
}
