package patch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// A fileChange is one file of a proposal with both contents at hand: what
// the canonical diff is rendered from.
type fileChange struct {
	OldPath, NewPath string // "" when the file does not exist on that side
	OldMode, NewMode uint32
	OldSHA, NewSHA   string
	Old, New         []byte
}

// Status of a file in a proposal.
const (
	statusAdded    = "added"
	statusModified = "modified"
	statusDeleted  = "deleted"
	statusRenamed  = "renamed"
)

func (c *fileChange) status() string {
	switch {
	case c.OldPath == "":
		return statusAdded
	case c.NewPath == "":
		return statusDeleted
	case c.OldPath != c.NewPath:
		return statusRenamed
	}
	return statusModified
}

// path is the path the file has after the patch (before it, for a
// deletion).
func (c *fileChange) path() string {
	if c.NewPath != "" {
		return c.NewPath
	}
	return c.OldPath
}

// canonicalContext is the number of context lines of the diff whose
// digest binds an approval.
const canonicalContext = 3

// renderDiff renders changes as a git-style unified diff with ctx lines of
// context, and counts each file's added and deleted lines.
func renderDiff(changes []*fileChange, ctx int) (string, []FileStat, error) {
	p := &patchView{}
	stats := make([]FileStat, 0, len(changes))
	for _, c := range changes {
		fp := newFilePatch(c)
		p.files = append(p.files, fp)
		st := FileStat{Path: c.path(), Status: c.status()}
		if st.Status == statusRenamed {
			st.OldPath = c.OldPath
		}
		for _, ch := range fp.chunks {
			n := strings.Count(ch.text, "\n")
			if !strings.HasSuffix(ch.text, "\n") {
				n++
			}
			switch ch.op {
			case fdiff.Add:
				st.Additions += n
			case fdiff.Delete:
				st.Deletions += n
			}
		}
		stats = append(stats, st)
	}
	var b bytes.Buffer
	for k, fp := range p.files {
		var one bytes.Buffer
		if err := fdiff.NewUnifiedEncoder(&one, ctx).Encode(&patchView{files: []fdiff.FilePatch{fp}}); err != nil {
			return "", nil, err
		}
		out := one.Bytes()
		if c := changes[k]; c.status() == statusRenamed && c.OldSHA == c.NewSHA {
			// As git writes a pure rename, so that parsers that expect
			// its four header lines (go-diff among them) read it.
			if i := bytes.Index(out, []byte("\nrename from ")); i >= 0 {
				out = slices.Concat(out[:i+1], []byte("similarity index 100%\n"), out[i+1:])
			}
		}
		b.Write(out)
	}
	return b.String(), stats, nil
}

// digest is the hex SHA-256 of a diff's text.
func digest(diffText string) string {
	sum := sha256.Sum256([]byte(diffText))
	return hex.EncodeToString(sum[:])
}

// patchView adapts a proposal to go-git's unified diff encoder.
type patchView struct{ files []fdiff.FilePatch }

func (p *patchView) FilePatches() []fdiff.FilePatch { return p.files }
func (p *patchView) Message() string                { return "" }

type filePatch struct {
	from, to fdiff.File
	chunks   []chunk
	binary   bool
}

func newFilePatch(c *fileChange) *filePatch {
	fp := &filePatch{}
	if c.OldPath != "" {
		fp.from = file{path: c.OldPath, mode: c.OldMode, hash: c.OldSHA}
	}
	if c.NewPath != "" {
		fp.to = file{path: c.NewPath, mode: c.NewMode, hash: c.NewSHA}
	}
	if c.OldSHA == c.NewSHA {
		return fp // a rename or mode change: no content chunks
	}
	if bytes.IndexByte(c.Old, 0) >= 0 || bytes.IndexByte(c.New, 0) >= 0 {
		fp.binary = true // only ever an old file deleted: new binary content is refused
		return fp
	}
	for _, d := range diff.Do(string(c.Old), string(c.New)) {
		op := fdiff.Equal
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = fdiff.Add
		case diffmatchpatch.DiffDelete:
			op = fdiff.Delete
		}
		fp.chunks = append(fp.chunks, chunk{text: d.Text, op: op})
	}
	return fp
}

func (f *filePatch) IsBinary() bool { return f.binary }
func (f *filePatch) Files() (fdiff.File, fdiff.File) {
	return f.from, f.to
}
func (f *filePatch) Chunks() []fdiff.Chunk {
	out := make([]fdiff.Chunk, len(f.chunks))
	for i := range f.chunks {
		out[i] = f.chunks[i]
	}
	return out
}

type file struct {
	path string
	mode uint32
	hash string
}

func (f file) Hash() plumbing.Hash     { return plumbing.NewHash(f.hash) }
func (f file) Mode() filemode.FileMode { return filemode.FileMode(f.mode) }
func (f file) Path() string            { return f.path }

type chunk struct {
	text string
	op   fdiff.Operation
}

func (c chunk) Content() string       { return c.text }
func (c chunk) Type() fdiff.Operation { return c.op }
