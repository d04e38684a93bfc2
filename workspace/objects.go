package workspace

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// This file is the object-store side of writing to a workspace: blobs,
// commits and the reading of both, for tools that propose changes. Objects
// are immutable and named by their hash, so writing one never changes what
// any revision means; only refs do (see refwrite.go).

// CommitObject is a commit as tools that propose changes read and write it.
type CommitObject struct {
	SHA     string // set when read; ignored when written
	Tree    string
	Parents []string
	Author  string // name; also the committer
	Email   string
	Time    time.Time // author and committer time
	Message string
}

// WriteBlob stores data as a blob and returns its SHA.
func (w *Workspace) WriteBlob(data []byte) (string, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.writeObjectLocked(plumbing.BlobObject, data)
	if err != nil {
		return "", w.internalError("writing a blob", err)
	}
	return h.String(), nil
}

// ReadBlob reads a whole blob of at most max bytes. A larger blob is
// invalid_input: a tool that rewrites files works on text of bounded size.
func (w *Workspace) ReadBlob(sha string, max int64) ([]byte, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	h := plumbing.NewHash(sha)
	size, err := r.blobSizeLocked(h)
	if err != nil {
		return nil, w.objectError(sha, err)
	}
	if size > max {
		return nil, errclass.Errorf(errclass.InvalidInput, "blob %s is %d bytes, more than the %d allowed", sha, size, max)
	}
	data, _, err := r.readBlobLocked(h, 0, max)
	if err != nil {
		return nil, w.objectError(sha, err)
	}
	return data, nil
}

// WriteEmptyTree stores the empty tree and returns its SHA: the tree of
// commits that carry only a message, such as records.
func (w *Workspace) WriteEmptyTree() (string, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.writeObjectLocked(plumbing.TreeObject, nil)
	if err != nil {
		return "", w.internalError("writing the empty tree", err)
	}
	return h.String(), nil
}

// ReadCommit reads a commit object.
func (w *Workspace) ReadCommit(sha string) (CommitObject, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := object.GetCommit(r.storage, plumbing.NewHash(sha))
	if err != nil {
		return CommitObject{}, w.objectError(sha, err)
	}
	out := CommitObject{
		SHA: c.Hash.String(), Tree: c.TreeHash.String(), Author: c.Author.Name, Email: c.Author.Email,
		Time: c.Author.When, Message: c.Message,
	}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	return out, nil
}

// WriteCommit stores a commit and returns its SHA. The same commit written
// twice has the same SHA: times are given, never taken from the clock.
func (w *Workspace) WriteCommit(c CommitObject) (string, error) {
	sig := object.Signature{Name: c.Author, Email: c.Email, When: c.Time}
	commit := &object.Commit{
		Author: sig, Committer: sig, Message: c.Message, TreeHash: plumbing.NewHash(c.Tree),
	}
	for _, p := range c.Parents {
		commit.ParentHashes = append(commit.ParentHashes, plumbing.NewHash(p))
	}
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	obj := r.storage.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return "", w.internalError("encoding a commit", err)
	}
	h, err := r.storage.SetEncodedObject(obj)
	if err != nil {
		return "", w.internalError("writing a commit", err)
	}
	return h.String(), nil
}

// writeObjectLocked stores an object unless the store already has it.
func (r *repo) writeObjectLocked(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, data)
	if r.storage.HasEncodedObject(h) == nil {
		return h, nil
	}
	obj := r.storage.NewEncodedObject()
	obj.SetType(t)
	obj.SetSize(int64(len(data)))
	wr, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := wr.Write(data); err != nil {
		wr.Close()
		return plumbing.ZeroHash, err
	}
	if err := wr.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.storage.SetEncodedObject(obj)
}

// encodeTree renders entries (sorted in git order) as a tree object.
func encodeTree(entries []treeEntry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%o %s\x00", uint32(e.mode), e.name)
		b.Write(e.hash[:])
	}
	return b.Bytes()
}

func (w *Workspace) objectError(sha string, err error) error {
	if err == plumbing.ErrObjectNotFound {
		return errclass.Errorf(errclass.NotFound, "object %s does not exist in workspace %q", sha, w.id).Wrap(err)
	}
	return w.internalError("reading an object", err)
}

// splitParent splits a clean path into its directory and base name.
func splitParent(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}
