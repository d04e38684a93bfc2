package goindex

import (
	"crypto/sha256"
	"encoding/binary"
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

// diskCache stores the parsed files of a revision's index in one file per
// (revision, options), named by a digest of them, the format version and
// the Go version (whose parser produced the data).
//
// A file is a 20-byte header (magic, format version, payload length,
// CRC-32C of the payload) and the payload. A file that is short, of
// another version or fails its checksum is a miss, and is removed. Files
// are written to a temporary name and renamed into place, so concurrent
// processes never see a partial file; the last writer wins.
type diskCache struct {
	dir string
	max int // files kept; the least recently used beyond it are removed
	log *slog.Logger
}

const (
	diskMagic   = "GOIX"
	diskVersion = 1
	headerSize  = 4 + 4 + 8 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (d *diskCache) path(rev string, opts Options) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s\x00%s", diskMagic, diskVersion, runtime.Version(), rev+"\x00"+opts.key()))
	name := hex.EncodeToString(h[:16])
	return filepath.Join(d.dir, name[:2], name+".gix")
}

func (d *diskCache) load(rev string, opts Options) ([]indexedFile, bool) {
	p := d.path(rev, opts)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err == nil {
		var files []indexedFile
		if files, err = decodeSnapshot(data, rev); err == nil {
			d.log.Debug("goindex: loaded from disk", "revision", rev, "files", len(files))
			now := time.Now()
			os.Chtimes(p, now, now) // recently used: pruned last
			return files, true
		}
	}
	d.log.Warn("goindex: discarding unreadable cache file", "path", p, "err", err)
	os.Remove(p)
	return nil, false
}

func (d *diskCache) store(rev string, opts Options, files []indexedFile) {
	p := d.path(rev, opts)
	if err := writeAtomic(p, encodeSnapshot(rev, files)); err != nil {
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
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func encodeSnapshot(rev string, files []indexedFile) []byte {
	e := encoder{buf: make([]byte, headerSize, 1<<20)}
	e.str(rev)
	e.uint(uint64(len(files)))
	for i := range files {
		f := &files[i]
		e.str(f.path)
		e.str(f.id)
		e.str(f.importPath)
		pf := f.pf
		e.str(pf.pkgName)
		e.uint(uint64(pf.pkgLine))
		e.uint(uint64(pf.pkgCol))
		e.str(pf.pkgDoc)
		e.str(pf.constraint)
		e.bool(pf.parseErr)
		e.uint(uint64(len(pf.syms)))
		for j := range pf.syms {
			s := &pf.syms[j]
			e.str(s.name)
			e.str(s.container)
			e.uint(uint64(s.kind))
			e.bool(s.ptrRecv)
			e.uint(uint64(s.line))
			e.uint(uint64(s.col))
			e.str(s.sig)
			e.str(s.doc)
		}
	}
	b := e.buf
	copy(b, diskMagic)
	binary.LittleEndian.PutUint32(b[4:], diskVersion)
	binary.LittleEndian.PutUint64(b[8:], uint64(len(b)-headerSize))
	binary.LittleEndian.PutUint32(b[16:], crc32.Checksum(b[headerSize:], castagnoli))
	return b
}

var errCorrupt = errors.New("corrupt cache file")

func decodeSnapshot(data []byte, rev string) (files []indexedFile, err error) {
	if len(data) < headerSize || string(data[:4]) != diskMagic ||
		binary.LittleEndian.Uint32(data[4:]) != diskVersion ||
		binary.LittleEndian.Uint64(data[8:]) != uint64(len(data)-headerSize) ||
		binary.LittleEndian.Uint32(data[16:]) != crc32.Checksum(data[headerSize:], castagnoli) {
		return nil, errCorrupt
	}
	// One string holds the payload; decoded strings are slices of it.
	d := decoder{s: string(data[headerSize:])}
	defer func() {
		if recover() != nil { // a bound check failed: checksummed but malformed
			files, err = nil, errCorrupt
		}
	}()
	if d.str() != rev {
		return nil, errCorrupt
	}
	n := d.count(32)
	files = make([]indexedFile, n)
	for i := range files {
		f := &files[i]
		f.path, f.id, f.importPath = d.str(), d.str(), d.str()
		pf := &parsedFile{pkgName: d.str(), pkgLine: int32(d.uint()), pkgCol: int32(d.uint())}
		pf.pkgDoc, pf.constraint, pf.parseErr = d.str(), d.str(), d.bool()
		pf.syms = make([]symbol, d.count(8))
		for j := range pf.syms {
			s := &pf.syms[j]
			s.name, s.container = d.str(), d.str()
			s.kind = Kind(d.uint())
			s.ptrRecv = d.bool()
			s.line, s.col = int32(d.uint()), int32(d.uint())
			s.sig, s.doc = d.str(), d.str()
			if s.kind == 0 || s.kind >= numKinds {
				return nil, errCorrupt
			}
		}
		f.pf = pf
	}
	if d.s != "" {
		return nil, errCorrupt
	}
	return files, nil
}

type encoder struct{ buf []byte }

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.buf = append(e.buf, s...) }
func (e *encoder) bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// decoder reads what encoder wrote. It panics on malformed input; the
// caller recovers.
type decoder struct{ s string }

func (d *decoder) uint() uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		c := d.s[0]
		d.s = d.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 || shift > 63 {
			return v
		}
	}
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.s)) {
		panic(errCorrupt)
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *decoder) bool() bool { return d.uint() != 0 }

// count reads a length, checking it against the bytes left (each element
// takes at least minSize bytes) so that a bad length cannot allocate much.
func (d *decoder) count(minSize int) int {
	n := d.uint()
	if n > uint64(len(d.s)/max(1, minSize))+1 {
		panic(errCorrupt)
	}
	return int(n)
}
