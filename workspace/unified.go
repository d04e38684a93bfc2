package workspace

import (
	"bytes"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// FileDiff is one file of a unified diff, with both contents at hand.
type FileDiff struct {
	OldPath, NewPath string // "" when the file does not exist on that side
	OldMode, NewMode uint32
	OldSHA, NewSHA   string
	Old, New         []byte
}

// LineCounts counts the lines a file's diff adds and deletes.
type LineCounts struct {
	Added, Deleted int
}

// UnifiedDiff renders files in git's unified diff format (the headers,
// index lines and hunks git diff writes), with context lines of context
// around each change, and counts each file's added and deleted lines. A
// file with a NUL byte on either side is rendered as binary, without
// hunks. It is the workspace's, like the rest of git's formats: tools that
// show changes render them here rather than importing git libraries.
func UnifiedDiff(files []FileDiff, context int) (string, []LineCounts, error) {
	counts := make([]LineCounts, len(files))
	var b bytes.Buffer
	for k := range files {
		f := &files[k]
		fp := newFilePatch(f)
		for _, ch := range fp.chunks {
			n := strings.Count(ch.text, "\n")
			if !strings.HasSuffix(ch.text, "\n") {
				n++
			}
			switch ch.op {
			case fdiff.Add:
				counts[k].Added += n
			case fdiff.Delete:
				counts[k].Deleted += n
			}
		}
		var one bytes.Buffer
		if err := fdiff.NewUnifiedEncoder(&one, context).Encode(&patchView{files: []fdiff.FilePatch{fp}}); err != nil {
			return "", nil, err
		}
		out := one.Bytes()
		if f.OldPath != "" && f.NewPath != "" && f.OldPath != f.NewPath && f.OldSHA == f.NewSHA {
			// As git writes a pure rename, so that parsers that expect
			// its four header lines (go-diff among them) read it.
			if i := bytes.Index(out, []byte("\nrename from ")); i >= 0 {
				out = slices.Concat(out[:i+1], []byte("similarity index 100%\n"), out[i+1:])
			}
		}
		b.Write(out)
	}
	return b.String(), counts, nil
}

// patchView adapts files to go-git's unified diff encoder.
type patchView struct{ files []fdiff.FilePatch }

func (p *patchView) FilePatches() []fdiff.FilePatch { return p.files }
func (p *patchView) Message() string                { return "" }

type filePatch struct {
	from, to fdiff.File
	chunks   []chunk
	binary   bool
}

func newFilePatch(c *FileDiff) *filePatch {
	fp := &filePatch{}
	if c.OldPath != "" {
		fp.from = diffFile{path: c.OldPath, mode: c.OldMode, hash: c.OldSHA}
	}
	if c.NewPath != "" {
		fp.to = diffFile{path: c.NewPath, mode: c.NewMode, hash: c.NewSHA}
	}
	if c.OldSHA == c.NewSHA {
		return fp // a rename or mode change: no content chunks
	}
	if bytes.IndexByte(c.Old, 0) >= 0 || bytes.IndexByte(c.New, 0) >= 0 {
		fp.binary = true
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

type diffFile struct {
	path string
	mode uint32
	hash string
}

func (f diffFile) Hash() plumbing.Hash     { return plumbing.NewHash(f.hash) }
func (f diffFile) Mode() filemode.FileMode { return filemode.FileMode(f.mode) }
func (f diffFile) Path() string            { return f.path }

type chunk struct {
	text string
	op   fdiff.Operation
}

func (c chunk) Content() string       { return c.text }
func (c chunk) Type() fdiff.Operation { return c.op }
