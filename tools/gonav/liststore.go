package gonav

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/atomicfile"
)

// listsDirName is the directory, under the cache directory, of the
// listings kept on disk; its version changes with the format.
const listsDirName = "lists-v1"

// listStore keeps go list's listings on disk by the listing key (see
// listKey), so that a new process, or a replica sharing the cache
// directory, does not run go list on an export an earlier one listed:
// go list was two fifths of a new process's first answer on the standard
// library with every package's type information on disk.
//
// The key covers what go list reads of the export, and the toolchain
// (toolchainID). What it reads outside the export, GOROOT's and the
// module cache's packages, the entry keeps the stats of: their
// directories' (a file added or removed changes them) and their Go
// files'. A reader stats them again and takes the entry only when every
// one is as it was; the stats it read then key those packages (see
// outsideStats), as a new run of go list's would. A listing in which a
// package has an error is not kept: a module missing from the module
// cache leaves no stat to compare once it is there.
//
// An entry is written to a temporary file and renamed into place, so a
// reader sees a whole entry or none; processes sharing the directory
// write the same listing under a key. One that does not decode, or holds
// another key's listing, is a miss, warned of.
type listStore struct {
	dir string // "" keeps nothing
	log *slog.Logger
}

// storedListing is an entry of the list store.
type storedListing struct {
	Key string
	// Dir is the export the listing was made in: a reader moves it to
	// its own (see moved).
	Dir      string
	Packages []*listedPackage
	// Outside are the stats of the packages outside the export.
	Outside []outsideRecord
}

// outsideRecord is what a listed package outside the export looked like
// when it was listed.
type outsideRecord struct {
	Package int // index in Packages
	Dir     statRecord
	Files   []statRecord // by index in GoFiles
}

// statRecord is a file's or directory's stat: what keys a package
// outside the repository (see loader.prepare).
type statRecord struct {
	Size    int64
	ModTime int64 // nanoseconds since the epoch
	Missing bool
}

func newStatRecord(fi fileStat) statRecord {
	if fi.err != nil {
		return statRecord{Missing: true}
	}
	return statRecord{Size: fi.size, ModTime: fi.modTime.UnixNano()}
}

func (r statRecord) fileStat() fileStat {
	if r.Missing {
		return fileStat{err: fs.ErrNotExist}
	}
	return fileStat{size: r.Size, modTime: time.Unix(0, r.ModTime)}
}

func (s *listStore) path(key string) string {
	return filepath.Join(s.dir, key[:2], key)
}

// read returns the listing of a key made in another export, moved to the
// export in dir, when one is kept and what it read outside the export is
// unchanged; nil otherwise.
func (s *listStore) read(key, dir string) []*listedPackage {
	if s.dir == "" {
		return nil
	}
	data, err := os.ReadFile(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var e storedListing
	if err == nil {
		err = decodeListing(data, key, &e)
	}
	if err != nil {
		s.log.Warn("go_navigate: a listing on disk cannot be read; running go list", "error", err)
		return nil
	}
	for _, r := range e.Outside {
		if !r.unchanged(e.Packages[r.Package]) {
			s.log.Debug("go_navigate: a package outside the export changed since it was listed; running go list", "package", e.Packages[r.Package].ImportPath)
			return nil
		}
	}
	return moved(e.Packages, e.Dir, dir)
}

// decodeListing decodes an entry read under key, and checks that it
// holds together.
func decodeListing(data []byte, key string, e *storedListing) error {
	if err := json.Unmarshal(data, e); err != nil {
		return fmt.Errorf("%w: %w", errDamaged, err)
	}
	if e.Key != key {
		return damaged("listing of key %.12s read under %.12s", e.Key, key)
	}
	for i, p := range e.Packages {
		if p == nil {
			return damaged("listed package %d is null", i)
		}
		p.outside = new(outsideStats)
	}
	for _, r := range e.Outside {
		if r.Package < 0 || r.Package >= len(e.Packages) || len(r.Files) != len(e.Packages[r.Package].GoFiles) {
			return damaged("stats of package %d do not fit the listing", r.Package)
		}
	}
	return nil
}

// unchanged reports whether a package's directory and files have the
// stats they had when it was listed; if so the package keys its files by
// them (its outsideStats are these).
func (r outsideRecord) unchanged(lp *listedPackage) bool {
	if newStatRecord(statPath(lp.Dir)) != r.Dir {
		return false
	}
	files := make([]fileStat, len(lp.GoFiles))
	for i, f := range lp.GoFiles {
		files[i] = statPath(filepath.Join(lp.Dir, f))
		if newStatRecord(files[i]) != r.Files[i] {
			return false
		}
	}
	lp.outside.set(files)
	return true
}

// write keeps the listing of a key, made in the export in dir, unless a
// package in it has an error.
func (s *listStore) write(key, dir string, listed []*listedPackage) {
	if s.dir == "" {
		return
	}
	e := storedListing{Key: key, Dir: dir, Packages: listed}
	for i, lp := range listed {
		if lp.listError() != "" {
			return
		}
		if _, in := under(dir, lp.Dir); in || lp.Dir == "" {
			continue
		}
		r := outsideRecord{Package: i, Dir: newStatRecord(statPath(lp.Dir)), Files: make([]statRecord, len(lp.GoFiles))}
		for j := range lp.GoFiles {
			r.Files[j] = newStatRecord(lp.outside.stat(lp, j))
		}
		e.Outside = append(e.Outside, r)
	}
	if err := s.save(key, &e); err != nil {
		s.log.Warn("go_navigate: a listing cannot be kept on disk", "error", err)
	}
}

func (s *listStore) save(key string, e *storedListing) error {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(e); err != nil {
		return err
	}
	path := s.path(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}
