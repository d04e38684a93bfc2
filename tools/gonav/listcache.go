package gonav

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
)

// listCache keeps go list's output by what it depends on in an export,
// so that a revision that changes no file's package clause, build
// constraints, imports or directives, and no module file, is not listed
// again: go list costs seconds, a second revision's check less. It keeps
// the listings on disk too (listStore), for a new process.
type listCache struct {
	store listStore
	mu    sync.Mutex
	// toolchain names the go command and the module cache (see
	// toolchainID), read at the first listing.
	toolchain string
	entries   []listEntry // most recent last
	max       int
	runs      int // of go list, for tests
	// headers are the hashes of the Go files' headers (listedHeader)
	// of the last key, by blob id: the next export's files of the same
	// blob are not read and parsed again.
	headers map[string][sha256.Size]byte
}

type listEntry struct {
	key    string
	dir    string // the export the listing was made in
	listed []*listedPackage
}

// list returns the listing of the export in dir, laid out as lay, running
// go list unless a listing with the same key is kept. blobs are the
// blob ids of the export's files by host path, those known.
func (c *listCache) list(ctx context.Context, l lister, dir string, lay layout, absent []string, blobs map[string]string) ([]*listedPackage, error) {
	pattern, opts := lay.listing()
	opts = append(opts, verify.WithAbsent(absent...))
	c.mu.Lock()
	known := c.headers
	if c.toolchain == "" {
		c.toolchain = toolchainID(l)
	}
	toolchain := c.toolchain
	c.mu.Unlock()
	key, headers, err := listKey(dir, lay, absent, toolchain, blobs, known)
	c.mu.Lock()
	c.headers = headers
	c.mu.Unlock()
	if err != nil {
		return listPackages(ctx, l, dir, pattern, opts...)
	}
	if e, ok := c.get(key); ok {
		return moved(e.listed, e.dir, dir), nil
	}
	if listed := c.store.read(key, dir); listed != nil {
		c.put(listEntry{key: key, dir: dir, listed: listed})
		return listed, nil
	}
	c.mu.Lock()
	c.runs++
	c.mu.Unlock()
	listed, err := listPackages(ctx, l, dir, pattern, opts...)
	if err != nil {
		return nil, err
	}
	c.put(listEntry{key: key, dir: dir, listed: listed})
	c.store.write(key, dir, listed)
	return listed, nil
}

// toolchainID names what a listing depends on besides the export and the
// packages it names: the go command's GOROOT, its VERSION file and
// binary, and the module cache's directory. A go command installed again
// in place changes its binary's size or time.
func toolchainID(l lister) string {
	root := l.GoRoot()
	version, _ := os.ReadFile(filepath.Join(root, "VERSION"))
	bin := newStatRecord(statPath(filepath.Join(root, "bin", "go")))
	return fmt.Sprintf("%s\x00%q\x00%+v\x00%s", root, version, bin, l.ModCache())
}

func (c *listCache) get(key string) (listEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.key == key {
			return e, true
		}
	}
	return listEntry{}, false
}

func (c *listCache) put(e listEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, e)
	if len(c.entries) > c.max {
		c.entries = c.entries[len(c.entries)-c.max:]
	}
}

// moved returns a listing made in the export from as it reads in the
// export to: the packages' directories in it change, nothing else.
func moved(listed []*listedPackage, from, to string) []*listedPackage {
	out := make([]*listedPackage, len(listed))
	for i, lp := range listed {
		cp := *lp
		if rel, ok := under(from, cp.Dir); cp.Dir != "" && ok {
			cp.Dir = filepath.Join(to, rel)
		}
		out[i] = &cp
	}
	return out
}

// under returns the path p has relative to dir, and whether p is in dir.
func under(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	return rel, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// listKey hashes what go list reads of an export: every path, the module
// files whole, and of each Go file what decides its package and imports
// (see listedHeader); the layout, which decides how go list is asked; and
// the paths the sandbox hides; and the toolchain (see toolchainID). A Go file whose blob id (in blobs, by host
// path) is in known has that header hash; it returns the header hashes
// of the export's files by blob id.
func listKey(dir string, lay layout, absent []string, toolchain string, blobs map[string]string, known map[string][sha256.Size]byte) (string, map[string][sha256.Size]byte, error) {
	entries, err := walkExport(dir, blobs, known)
	if err == nil {
		err = hashHeaders(entries)
	}
	if err != nil {
		return "", nil, fmt.Errorf("hashing the export for go list: %w", err)
	}
	headers := map[string][sha256.Size]byte{}
	h := sha256.New()
	fmt.Fprintf(h, "list-v4\x00%s\x00%d\x00%q\x00%q\x00", listFields, lay, absent, toolchain)
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%d\x00", e.rel, e.typ)
		if !e.hashed {
			continue
		}
		if e.named {
			headers[e.blob] = e.sum
		}
		fmt.Fprintf(h, "%x\x00", e.sum)
	}
	return hex.EncodeToString(h.Sum(nil)), headers, nil
}

// exportEntry is a path of an export as listKey hashes it.
type exportEntry struct {
	rel, path string
	typ       fs.FileMode
	// hashed says the key has the hash of the file, sum: of what go
	// list reads of it, or of all of it (whole).
	hashed, whole bool
	blob          string // its blob id, when named, with " whole" for a whole file
	named         bool
	sum           [sha256.Size]byte
	known         bool // sum is known already, by blob
}

// walkExport returns the export's paths in order, and the hashes known
// by blob of those to hash.
func walkExport(dir string, blobs map[string]string, known map[string][sha256.Size]byte) ([]exportEntry, error) {
	var entries []exportEntry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		e := exportEntry{rel: filepath.ToSlash(rel), path: path, typ: d.Type()}
		name := d.Name()
		e.whole = name == "go.mod" || name == "go.sum" || name == "go.work" || name == "go.work.sum" || name == "modules.txt"
		e.hashed = d.Type().IsRegular() && (e.whole || strings.HasSuffix(name, ".go"))
		if e.hashed {
			e.blob, e.named = blobs[path]
			if e.whole {
				e.blob += " whole" // a header's hash is not the whole file's
			}
			e.sum, e.known = known[e.blob]
			e.known = e.known && e.named
		}
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// hashHeaders hashes the files whose hash is not known, on every
// processor: reading and parsing the headers of a new process's first
// export was a tenth of its first answer, on one thread while nothing
// else runs.
func hashHeaders(entries []exportEntry) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range entries {
		e := &entries[i]
		if !e.hashed || e.known {
			continue
		}
		g.Go(func() error {
			data, err := os.ReadFile(e.path)
			if err != nil {
				return err
			}
			if !e.whole {
				data = listedHeader(data)
			}
			e.sum = sha256.Sum256(data)
			return nil
		})
	}
	return g.Wait()
}

// listedHeader returns what go list reads of a Go file: everything up to
// the end of its imports (build constraints, the package clause, a cgo
// preamble), and every //go: directive after (go:embed patterns). A file
// whose header does not parse counts whole.
func listedHeader(src []byte) []byte {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil || f.Name == nil {
		return src
	}
	end := f.Name.End()
	if len(f.Decls) > 0 {
		end = f.Decls[len(f.Decls)-1].End()
	}
	n := int(end) - int(f.FileStart)
	out := bytes.Clone(src[:n])
	// Searched for, not line by line: a generated file has a million
	// lines and no directive.
	directive := []byte("//go:")
	for rest, start := src[n:], true; ; start = false {
		i := bytes.Index(rest, directive)
		if i < 0 {
			return out
		}
		if (i == 0 && start) || (i > 0 && rest[i-1] == '\n') {
			line, _, _ := bytes.Cut(rest[i:], []byte("\n"))
			out = append(out, line...)
			if len(line) < len(rest[i:]) {
				out = append(out, '\n')
			}
		}
		rest = rest[i+len(directive):]
	}
}
