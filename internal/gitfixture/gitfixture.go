// Package gitfixture builds git repositories for tests, with go-git's
// plumbing rather than the git binary, so that tests can also build what git
// itself refuses to write: tree entries named ".git" or "..", unsorted
// trees, symlinks pointing anywhere, gitlinks to commits that do not exist.
//
//	repo := gitfixture.New(t)
//	head := repo.Commit(t, "first", map[string]gitfixture.File{
//		"README.md":   gitfixture.Text("hello\n"),
//		"bin/run":     gitfixture.Exec("#!/bin/sh\n"),
//		"etc":         gitfixture.Link("../../etc"),
//		".git/config": gitfixture.Text("[core]\n"), // a hostile tree entry
//	})
//	repo.Tag(t, "v1", head, true)
//
// Commits go to the current branch (main); the working tree on disk is left
// empty, so tests write the files they want there themselves.
package gitfixture

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// T is the part of testing.TB the builders use; *testing.T, *testing.B and
// *testing.F satisfy it. Fatalf must not return.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Skip(args ...any)
	TempDir() string
}

var _ T = testing.TB(nil)

// Repo is a repository under construction.
type Repo struct {
	Dir    string // the root: a working tree with .git, or a bare repository
	storer storer.Storer
}

// File is the content of one path in a commit built by [Repo.Commit].
type File struct {
	Mode    filemode.FileMode
	Content string // file content, or symlink target
	Commit  string // for gitlinks: the submodule commit SHA
}

// Text is a regular file.
func Text(content string) File { return File{Mode: filemode.Regular, Content: content} }

// Exec is an executable file.
func Exec(content string) File { return File{Mode: filemode.Executable, Content: content} }

// Link is a symbolic link with the given target text.
func Link(target string) File { return File{Mode: filemode.Symlink, Content: target} }

// Gitlink is a submodule entry pointing at a commit.
func Gitlink(sha string) File { return File{Mode: filemode.Submodule, Commit: sha} }

// New initializes a repository with a working tree in a temporary
// directory; HEAD points at the unborn branch main.
func New(t T) *Repo { return initRepo(t, t.TempDir(), false) }

// NewBare initializes a bare repository in a temporary directory.
func NewBare(t T) *Repo { return initRepo(t, t.TempDir(), true) }

// Init initializes a repository in dir, which may already exist.
func Init(t T, dir string, bare bool) *Repo { return initRepo(t, dir, bare) }

func initRepo(t T, dir string, bare bool) *Repo {
	t.Helper()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		Bare:        bare,
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		t.Fatalf("gitfixture: init: %v", err)
	}
	return &Repo{Dir: dir, storer: r.Storer}
}

// Blob stores content as a blob and returns its SHA.
func (r *Repo) Blob(t T, content string) string {
	t.Helper()
	return r.store(t, plumbing.BlobObject, []byte(content))
}

// TreeEntry is one raw entry of a tree built by [Repo.Tree].
type TreeEntry struct {
	Name string
	Mode filemode.FileMode
	SHA  string
}

// Tree stores a tree with exactly these entries, in this order, whatever
// their names, and returns its SHA.
func (r *Repo) Tree(t T, entries []TreeEntry) string {
	t.Helper()
	var buf bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&buf, "%o %s\x00", uint32(e.Mode), e.Name)
		h := plumbing.NewHash(e.SHA)
		buf.Write(h[:])
	}
	return r.store(t, plumbing.TreeObject, buf.Bytes())
}

// Commit stores the files as a tree (nested by "/" in their paths; any
// component name is taken literally) and commits it on top of the current
// branch, which it advances. It returns the commit SHA.
func (r *Repo) Commit(t T, message string, files map[string]File) string {
	t.Helper()
	tree := r.buildTree(t, files)
	var parents []string
	if head, err := storer.ResolveReference(r.storer, plumbing.HEAD); err == nil {
		parents = []string{head.Hash().String()}
	}
	sha := r.CommitTree(t, message, tree, parents...)
	head, err := r.storer.Reference(plumbing.HEAD)
	if err != nil {
		t.Fatalf("gitfixture: HEAD: %v", err)
	}
	r.SetRef(t, head.Target().String(), sha)
	return sha
}

// CommitTree stores a commit of a tree with the given parents, without
// moving any ref, and returns its SHA. Author and committer times are fixed,
// one minute apart per commit count, so SHAs are reproducible.
func (r *Repo) CommitTree(t T, message, tree string, parents ...string) string {
	t.Helper()
	when := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(parents)+len(message)) * time.Minute)
	sig := object.Signature{Name: "Fixture", Email: "fixture@example.com", When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: plumbing.NewHash(tree)}
	for _, p := range parents {
		c.ParentHashes = append(c.ParentHashes, plumbing.NewHash(p))
	}
	obj := r.storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatalf("gitfixture: encoding commit: %v", err)
	}
	h, err := r.storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatalf("gitfixture: storing commit: %v", err)
	}
	return h.String()
}

// SetRef points a ref (a full name such as "refs/heads/dev") at a SHA.
func (r *Repo) SetRef(t T, name, sha string) {
	t.Helper()
	ref := plumbing.NewHashReference(plumbing.ReferenceName(name), plumbing.NewHash(sha))
	if err := r.storer.SetReference(ref); err != nil {
		t.Fatalf("gitfixture: setting %s: %v", name, err)
	}
}

// Tag creates refs/tags/name pointing at target; an annotated tag object
// when annotated is set. It returns the SHA the ref points at.
func (r *Repo) Tag(t T, name, target string, annotated bool) string {
	t.Helper()
	sha := target
	if annotated {
		sig := object.Signature{Name: "Fixture", Email: "fixture@example.com", When: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)}
		tag := &object.Tag{Name: name, Tagger: sig, Message: name + "\n", TargetType: plumbing.CommitObject, Target: plumbing.NewHash(target)}
		obj := r.storer.NewEncodedObject()
		if err := tag.Encode(obj); err != nil {
			t.Fatalf("gitfixture: encoding tag: %v", err)
		}
		h, err := r.storer.SetEncodedObject(obj)
		if err != nil {
			t.Fatalf("gitfixture: storing tag: %v", err)
		}
		sha = h.String()
	}
	r.SetRef(t, "refs/tags/"+name, sha)
	return sha
}

func (r *Repo) store(t T, typ plumbing.ObjectType, data []byte) string {
	t.Helper()
	obj := r.storer.NewEncodedObject()
	obj.SetType(typ)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatalf("gitfixture: writing object: %v", err)
	}
	h, err := r.storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatalf("gitfixture: storing object: %v", err)
	}
	return h.String()
}

// buildTree writes nested trees for files and returns the root tree SHA.
// Entries are sorted as git sorts them.
func (r *Repo) buildTree(t T, files map[string]File) string {
	t.Helper()
	direct := make(map[string]File)
	sub := make(map[string]map[string]File)
	for p, f := range files {
		name, rest, nested := strings.Cut(p, "/")
		if !nested {
			direct[name] = f
			continue
		}
		if sub[name] == nil {
			sub[name] = make(map[string]File)
		}
		sub[name][rest] = f
	}
	var entries []TreeEntry
	for name, f := range direct {
		sha := f.Commit
		if f.Mode != filemode.Submodule {
			sha = r.Blob(t, f.Content)
		}
		entries = append(entries, TreeEntry{Name: name, Mode: f.Mode, SHA: sha})
	}
	for name, files := range sub {
		entries = append(entries, TreeEntry{Name: name, Mode: filemode.Dir, SHA: r.buildTree(t, files)})
	}
	slices.SortFunc(entries, func(a, b TreeEntry) int { return strings.Compare(sortKey(a), sortKey(b)) })
	return r.Tree(t, entries)
}

func sortKey(e TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// Git runs the git binary in dir and returns its standard output. It skips
// the test when git is not installed. The environment pins identity and
// ignores the user's configuration.
func Git(t T, dir string, args ...string) string {
	t.Helper()
	return GitInput(t, dir, nil, args...)
}

// GitInput is [Git] with stdin read from in, for commands such as git
// fast-import that take a stream.
func GitInput(t T, dir string, in io.Reader, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("gitfixture: git binary not found")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdin = dir, in
	cmd.Env = append(cmd.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com",
		"GIT_COMMITTER_NAME=Fixture", "GIT_COMMITTER_EMAIL=fixture@example.com",
		"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
		// git fast-import frees and allocates a buffer per blob around
		// glibc's trim threshold, so glibc returns the heap's top to the
		// system and takes it back each time: 100k blobs took 2.5 minutes
		// of brk calls and page faults on a busy machine, 7 s with this.
		"GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gitfixture: git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// ShallowClone clones r with git clone --depth, as a CI checkout does, into
// a new temporary directory, and returns its path.
func (r *Repo) ShallowClone(t T, depth int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shallow")
	Git(t, r.Dir, "clone", "-q", "--depth", strconv.Itoa(depth), "file://"+r.Dir, dir)
	return dir
}
