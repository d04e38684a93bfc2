package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/gitattributes"
)

// A blob is not always in the working tree byte for byte: gitattributes
// (text, eol, the legacy crlf) and core.autocrlf / core.eol make git check
// text out with CRLF line ends, and filter, ident and
// working-tree-encoding make it run conversions of its own. A worktree
// apply compares and writes each file in the form git would check it out:
// it does the line-end conversion itself, and refuses a file under any
// of the others, naming the attribute, since what a filter driver (Git
// LFS among them) makes of a blob cannot be reproduced here.
//
// The attributes are read from the base commit's .gitattributes files
// (HEAD is the base when an apply runs) and the repository's
// info/attributes; the settings from the repository's own config.

// CheckoutForm is how git writes one path's blobs into the working tree.
type CheckoutForm struct {
	// CRLF says lone LFs become CRLF.
	CRLF bool `json:"crlf,omitempty"`
	// Auto limits CRLF to blobs that look like text and hold no CR
	// (text=auto, core.autocrlf=true).
	Auto bool `json:"auto,omitempty"`
	// Why names the attribute or setting that asks for CRLF.
	Why string `json:"why,omitempty"`
	// Refuse names an attribute whose conversion cannot be reproduced
	// (filter=lfs, ident, working-tree-encoding=...).
	Refuse string `json:"refuse,omitempty"`
}

// Smudge returns data as git writes it into the working tree.
func (f CheckoutForm) Smudge(data []byte) []byte {
	if !f.CRLF || f.Auto && (bytes.IndexByte(data, 0) >= 0 || bytes.IndexByte(data, '\r') >= 0) {
		return data
	}
	lone := bytes.Count(data, []byte("\n")) - bytes.Count(data, []byte("\r\n"))
	if lone == 0 {
		return data
	}
	out := make([]byte, 0, len(data)+lone)
	for i, c := range data {
		if c == '\n' && (i == 0 || data[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

// checkoutRules computes the checkout form of paths at one commit.
type checkoutRules struct {
	src      *commitSource
	info     []gitattributes.MatchAttribute // info/attributes
	dirs     map[string][]gitattributes.MatchAttribute
	autocrlf string // core.autocrlf: "true", "input" or ""
	eol      string // core.eol
}

// checkoutRules reads the settings and info/attributes of w, for paths at
// commit base.
func (w *Workspace) checkoutRules(base string) (*checkoutRules, error) {
	src, err := newCommitSource(w, plumbing.NewHash(base))
	if err != nil {
		return nil, err
	}
	c := &checkoutRules{src: src, dirs: map[string][]gitattributes.MatchAttribute{}}
	w.repo.mu.Lock()
	cfg, err := w.repo.storage.Config()
	w.repo.mu.Unlock()
	if err != nil {
		return nil, w.internalError("reading the repository's config", err)
	}
	core := cfg.Raw.Section("core")
	c.autocrlf = strings.ToLower(core.Option("autocrlf"))
	c.eol = strings.ToLower(core.Option("eol"))
	dir := w.layout.gitDir
	if w.layout.commonDir != "" {
		dir = w.layout.commonDir
	}
	data, err := os.ReadFile(filepath.Join(dir, "info", "attributes"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, w.internalError("reading info/attributes", err)
	default:
		if c.info, err = gitattributes.ReadAttributes(bytes.NewReader(data), nil, true); err != nil {
			return nil, w.internalError("parsing info/attributes", err)
		}
	}
	return c, nil
}

// attrs returns the attributes of the .gitattributes file in dir at the
// commit ("" for the root); none when there is no such file.
func (c *checkoutRules) attrs(dir string) []gitattributes.MatchAttribute {
	if a, ok := c.dirs[dir]; ok {
		return a
	}
	p := ".gitattributes"
	var domain []string
	if dir != "" {
		p, domain = dir+"/.gitattributes", strings.Split(dir, "/")
	}
	var out []gitattributes.MatchAttribute
	if e, err := c.src.stat(p); err == nil && e.Type == TypeFile {
		if data, err := c.src.ws.ReadBlob(e.SHA, 1<<20); err == nil {
			out, _ = gitattributes.ReadAttributes(bytes.NewReader(data), domain, dir == "")
		}
	}
	c.dirs[dir] = out
	return out
}

// lookup returns the value of attribute name at p: the last matching line
// of the file with the highest priority (info/attributes, then the
// deepest .gitattributes). "binary" counts as -text.
func (c *checkoutRules) lookup(p, name string) (gitattributes.Attribute, bool) {
	parts := strings.Split(p, "/")
	stack := [][]gitattributes.MatchAttribute{c.info}
	for i := len(parts) - 1; i >= 0; i-- {
		stack = append(stack, c.attrs(strings.Join(parts[:i], "/")))
	}
	for _, file := range stack {
		for i := len(file) - 1; i >= 0; i-- {
			m := file[i]
			if m.Pattern == nil || !m.Pattern.Match(parts) {
				continue
			}
			for j := len(m.Attributes) - 1; j >= 0; j-- {
				a := m.Attributes[j]
				if a.Name() == name || name == "text" && a.Name() == "binary" && a.IsSet() {
					return a, true
				}
			}
		}
	}
	return nil, false
}

// form decides how git checks out blobs at p.
func (c *checkoutRules) form(p string) CheckoutForm {
	if a, ok := c.lookup(p, "filter"); ok && a.IsValueSet() {
		return CheckoutForm{Refuse: "filter=" + a.Value()}
	}
	if a, ok := c.lookup(p, "ident"); ok && a.IsSet() {
		return CheckoutForm{Refuse: "ident"}
	}
	if a, ok := c.lookup(p, "working-tree-encoding"); ok && a.IsValueSet() {
		return CheckoutForm{Refuse: "working-tree-encoding=" + a.Value()}
	}
	text, auto := "", false // text: the attribute that makes p text ("" when it is not text)
	eolAttr, _ := c.lookup(p, "eol")
	switch a, ok := c.lookup(p, "text"); {
	case ok && a.Name() == "binary", ok && a.IsUnset():
		return CheckoutForm{}
	case ok && a.IsSet():
		text = "text"
	case ok && a.IsValueSet() && a.Value() == "auto":
		text, auto = "text=auto", true
	default:
		switch l, ok := c.lookup(p, "crlf"); {
		case ok && l.IsUnset():
			return CheckoutForm{}
		case ok && l.IsValueSet() && l.Value() == "input":
			return CheckoutForm{}
		case ok && l.IsSet():
			text = "crlf"
		case eolAttr != nil && eolAttr.IsValueSet():
			text = "eol"
		case c.autocrlf == "true":
			return CheckoutForm{CRLF: true, Auto: true, Why: "core.autocrlf=true"}
		default:
			return CheckoutForm{}
		}
	}
	switch {
	case eolAttr != nil && eolAttr.IsValueSet() && eolAttr.Value() == "crlf":
		return CheckoutForm{CRLF: true, Auto: auto, Why: "eol=crlf"}
	case eolAttr != nil && eolAttr.IsValueSet() && eolAttr.Value() == "lf":
		return CheckoutForm{}
	case c.autocrlf == "true":
		return CheckoutForm{CRLF: true, Auto: auto, Why: text + " with core.autocrlf=true"}
	case c.autocrlf == "input":
		return CheckoutForm{}
	case c.eol == "crlf":
		return CheckoutForm{CRLF: true, Auto: auto, Why: text + " with core.eol=crlf"}
	}
	return CheckoutForm{}
}

// checkoutSHA is the blob id of blob sha's content in checkout form f:
// sha itself when f converts nothing, or when the blob cannot be read
// (then only its exact content matches).
func (w *Workspace) checkoutSHA(sha string, f CheckoutForm) string {
	if sha == "" || !f.CRLF {
		return sha
	}
	data, err := w.ReadBlob(sha, 1<<30)
	if err != nil {
		return sha
	}
	return blobSHA(f.Smudge(data))
}
