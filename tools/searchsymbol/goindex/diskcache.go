package goindex

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

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
// tables as they are in memory (see diskformat.go): loading maps it and
// checks it, without parsing, decoding, interning or grouping anything.
//
// A file that is short, of another version, fails its checksum or its
// consistency checks is a miss, and is removed. Files are written to a
// temporary name and renamed into place, never written in place, so
// concurrent processes never see a partial file, and a mapped file never
// changes under its reader; the last writer wins.
type diskCache struct {
	dir string
	max int // files kept; the least recently used beyond it are removed
	log *slog.Logger
}

// diskVersion is the version of the file format; raise it with any change
// to the format or to the tables' records.
const diskVersion = 3

func (d *diskCache) path(rev string, opts Options) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s\x00%s", diskMagic, diskVersion, runtime.Version(), rev+"\x00"+opts.key()))
	name := hex.EncodeToString(h[:16])
	return filepath.Join(d.dir, name[:2], name+".gix")
}

// load returns the stored index of rev and opts, if there is a good one.
func (d *diskCache) load(rev string, opts Options) (*Index, bool) {
	p := d.path(rev, opts)
	x, err := loadFile(p, rev, opts)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err == nil {
		d.log.Debug("goindex: loaded from disk", "revision", rev, "files", len(x.files))
		now := time.Now()
		os.Chtimes(p, now, now) // recently used: pruned last
		return x, true
	}
	d.log.Warn("goindex: discarding unreadable cache file", "path", p, "err", err)
	os.Remove(p)
	return nil, false
}

// loadFile maps the cache file p and returns the index it holds. The
// mapping lives as long as the index: it is released when the index is
// garbage, which is why nothing hands out the index's strings without
// copying them.
func loadFile(p, rev string, opts Options) (*Index, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() < headerSize || int64(int(info.Size())) != info.Size() {
		return nil, fmt.Errorf("%d bytes: %w", info.Size(), errCorrupt)
	}
	data, err := mapFile(f, int(info.Size()))
	if err != nil {
		return nil, err
	}
	x, err := decodeIndex(data, rev, opts)
	if err != nil {
		unmapFile(data)
		return nil, err
	}
	runtime.AddCleanup(x, unmapFile, data)
	return x, nil
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
