package goindex

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/repo-mcp/repo-mcp/internal/atomicfile"
)

// DefaultCacheDir returns the conventional on-disk cache directory,
// os.UserCacheDir()/repo-mcp/goindex.
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "repo-mcp", "goindex"), nil
}

// diskCache stores the index of a revision in one file per (revision,
// options), named by a digest of them, the format version and the Go
// version (whose parser produced the data). The file holds the index's
// tables as searches use them (see encodeIndex), so loading it is one read
// and a pass over its bytes, without parsing, interning or grouping.
//
// A file is a 20-byte header (magic, format version, payload length,
// CRC-32C of the payload) and the payload. A file that is short, of
// another version, fails its checksum or its consistency checks is a
// miss, and is removed. Files are written to a temporary name and renamed
// into place, so concurrent processes never see a partial file; the last
// writer wins, and a reader keeps the file it opened.
type diskCache struct {
	dir string
	max int // files kept; the least recently used beyond it are removed
	log *slog.Logger
}

const (
	diskMagic   = "GOIX"
	diskVersion = 2
	headerSize  = 4 + 4 + 8 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (d *diskCache) path(rev string, opts Options) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s\x00%s", diskMagic, diskVersion, runtime.Version(), rev+"\x00"+opts.key()))
	name := hex.EncodeToString(h[:16])
	return filepath.Join(d.dir, name[:2], name+".gix")
}

// load returns the stored index of rev and opts, if there is a good one.
func (d *diskCache) load(rev string, opts Options) (*Index, bool) {
	p := d.path(rev, opts)
	payload, err := readPayload(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err == nil {
		var x *Index
		if x, err = decodeIndex(payload, rev, opts); err == nil {
			d.log.Debug("goindex: loaded from disk", "revision", rev, "files", len(x.files))
			now := time.Now()
			os.Chtimes(p, now, now) // recently used: pruned last
			return x, true
		}
	}
	d.log.Warn("goindex: discarding unreadable cache file", "path", p, "err", err)
	os.Remove(p)
	return nil, false
}

// readPayload reads a cache file in one read and checks its header and
// checksum. It returns the payload as a string that shares the file's
// bytes: decoded strings are slices of it, and the bytes are never written
// after this function, so no copy is needed to make them immutable.
func readPayload(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	if len(data) < headerSize {
		return "", errCorrupt
	}
	payload := data[headerSize:]
	if !checkHeader(data[:headerSize], len(payload), crc32.Checksum(payload, castagnoli)) {
		return "", errCorrupt
	}
	if len(payload) == 0 {
		return "", nil
	}
	return unsafe.String(&payload[0], len(payload)), nil
}

func (d *diskCache) store(x *Index) {
	p := d.path(x.revision, x.opts)
	if err := writeAtomic(p, encodeIndex(x)); err != nil {
		d.log.Warn("goindex: cannot write cache file", "path", p, "err", err)
		return
	}
	d.prune()
}

// prune removes the least recently used cache files beyond d.max, and
// temporary files that a crashed writer left an hour or more ago.
func (d *diskCache) prune() {
	type entry struct {
		path string
		used time.Time
	}
	var files []entry
	filepath.WalkDir(d.dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".gix"):
			files = append(files, entry{p, info.ModTime()})
		case strings.HasPrefix(e.Name(), ".tmp-") && time.Since(info.ModTime()) > time.Hour:
			os.Remove(p)
		}
		return nil
	})
	if len(files) <= d.max {
		return
	}
	slices.SortFunc(files, func(a, b entry) int { return b.used.Compare(a.used) })
	for _, f := range files[d.max:] {
		os.Remove(f.path)
	}
}

func writeAtomic(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data)
}
