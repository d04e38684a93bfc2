package gonav

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
)

// listFields are the fields of go list's JSON the loader reads.
const listFields = "-json=ImportPath,Name,Dir,GoFiles,CgoFiles,Imports,ImportMap,ForTest,Module,Standard,Error,DepsErrors"

// maxListBytes bounds go list's output: a listing of the standard library
// with its tests is a few MiB.
const maxListBytes = 256 << 20

// listedPackage is one package as go list reports it. Its paths are the
// sandbox's until the lister maps them to the host.
type listedPackage struct {
	ImportPath string // with " [p.test]" for a test variant
	Name       string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string // resolved: package ids, variants included
	ImportMap  map[string]string
	ForTest    string
	Standard   bool
	Module     *struct {
		Path, Version string
		Main          bool
	}
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
	// outside are its files' sizes and times when it is outside the
	// repository, kept with the listing (see outsideStats); nil but in
	// a listing go list made.
	outside *outsideStats
}

// lister runs go list on an export.
type lister interface {
	GoList(ctx context.Context, dir string, args []string, stdout io.Writer, opts ...verify.RunOption) (verify.Result, verify.Isolation)
	HostPath(dir, p string) (string, bool)
	// GoRoot and ModCache are the go command's GOROOT and the module
	// cache go list reads.
	GoRoot() string
	ModCache() string
}

// ListError says go list could not run at all (not: some packages have
// errors, which the listing carries).
type ListError struct {
	Why string
}

func (e *ListError) Error() string { return "go list could not run: " + e.Why }

// listPackages runs go list -deps -test on the packages pattern matches in
// the export in dir, in the verify sandbox, and returns the packages with
// host paths. Test mains (p.test) are left out: their source is
// generated.
func listPackages(ctx context.Context, l lister, dir, pattern string, opts ...verify.RunOption) ([]*listedPackage, error) {
	var out boundedBuffer
	out.max = maxListBytes
	res, _ := l.GoList(ctx, dir, []string{"-e", listFields, "-deps", "-test", pattern}, &out, opts...)
	if res.Error != "" {
		return nil, &ListError{Why: res.Error}
	}
	if out.over {
		return nil, &ListError{Why: fmt.Sprintf("its output passed %d bytes", maxListBytes)}
	}
	dec := json.NewDecoder(bytes.NewReader(out.buf.Bytes()))
	var pkgs []*listedPackage
	for {
		p := new(listedPackage)
		err := dec.Decode(p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &ListError{Why: fmt.Sprintf("its output does not decode (%v); stderr: %s", err, res.Output)}
		}
		if p.ForTest == "" && strings.HasSuffix(p.ImportPath, ".test") {
			continue
		}
		if !p.toHost(l, dir) {
			continue
		}
		p.outside = new(outsideStats)
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 && !res.Passed {
		return nil, &ListError{Why: strings.TrimSpace(res.Output)}
	}
	return pkgs, nil
}

// toHost maps the package's directory to the host; it reports false for a
// directory outside the export, GOROOT and the module cache, which is
// never read.
func (p *listedPackage) toHost(l lister, dir string) bool {
	if p.Dir == "" {
		return true // a package go list could not find: its error says why
	}
	host, ok := l.HostPath(dir, p.Dir)
	p.Dir = host
	return ok
}

// listError is the package's own error or its first dependency's, "" for
// none.
func (p *listedPackage) listError() string {
	if p.Error != nil {
		return p.Error.Err
	}
	for _, e := range p.DepsErrors {
		if e != nil {
			return e.Err
		}
	}
	return ""
}

// boundedBuffer keeps at most max bytes and notes that more came.
type boundedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.over = true
		return 0, errors.New("go list output too large")
	}
	return b.buf.Write(p)
}
