package artifact

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// DefaultSummaryBytes is the default bound of what a model receives of one
// result.
const DefaultSummaryBytes = 16 << 10

// Ref names a stored artifact.
type Ref struct {
	Digest string `json:"digest"` // "sha256:<hex>"
	Size   int64  `json:"size"`
}

// packName is the file, in a store's directory, that its artifacts are
// appended to.
const packName = "pack"

// Store keeps artifacts named by the SHA-256 of their content, appended to
// one file of its directory, each record a header line
// ("sha256:<hex> <size>\n"), the content and a newline. One file rather
// than a file per artifact is what makes a Put cheap enough to sit on
// every call: appending to a file that exists and syncing it changes no
// directory, where a new file costs a create, a rename and a sync of the
// directory besides its own (3.9 ms against 0.7 ms on the disk
// bench/harness.sh measured). Stores written when each artifact had a
// file of its own, named by its digest's hex, are still read.
//
// A Store is safe for concurrent use.
type Store struct {
	dir string

	mu     sync.Mutex
	index  map[string]span // by digest: where the pack holds each artifact
	end    int64           // the end of the pack's last whole record
	synced int64           // the pack is known durable up to here
	named  bool            // the pack's directory entry is known durable

	// pack is open from a Write to the next Release, so that the calls
	// of an active run do not open and close it twice each; syncs is how
	// many syncs use it outside mu, and idle says Release came while they
	// did: the last to end closes it.
	pack  *os.File
	syncs int
	idle  bool
}

// span is where the pack holds an artifact's content.
type span struct{ off, size int64 }

// NewStore returns the store in dir, creating dir if needed, and indexes
// what its pack holds. A record cut short or garbled (the process or the
// machine died while appending it, before Put returned) ends what is
// indexed, and the next Put writes over it.
func NewStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	s := &Store{dir: dir, index: make(map[string]span)}
	f, err := os.Open(s.packPath())
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	defer f.Close()
	// What a new store finds may be what a killed process wrote and never
	// synced: the first sync covers it, and the pack's name, again.
	s.end = scan(bufio.NewReader(f), s.index)
	return s, nil
}

// scan indexes the whole records of a pack into index and returns where
// the last one ends: a record cut short, a header that is not one, or
// content that does not match its digest ends the scan. A crash can leave
// any of them where an unsynced record was being written (zeros, or the
// header without its content), and a record indexed would be taken for
// the artifact when the same bytes are stored again.
func scan(r *bufio.Reader, index map[string]span) int64 {
	var end int64
	h := sha256.New()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return end // at the end, or a header cut short
		}
		digest, sizeText, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		size, serr := strconv.ParseInt(sizeText, 10, 64)
		if !ok || serr != nil || size < 0 || !validDigest(digest) {
			return end
		}
		h.Reset()
		if n, _ := io.CopyN(h, r, size); n < size {
			return end // content cut short
		}
		if nl, err := r.ReadByte(); err != nil || nl != '\n' || "sha256:"+hex.EncodeToString(h.Sum(nil)) != digest {
			return end
		}
		index[digest] = span{off: end + int64(len(line)), size: size}
		end += int64(len(line)) + size + 1
	}
}

func (s *Store) packPath() string { return filepath.Join(s.dir, packName) }

// Holds reports whether the store in dir holds the artifact ref names,
// whole (its bytes match its digest). It reads only the end of the pack
// when the artifact is the last record there, as the one a call stored
// last is, and opens the whole store otherwise.
func Holds(dir string, ref Ref) (bool, error) {
	if last, err := isLastRecord(filepath.Join(dir, packName), ref); err != nil || last {
		return last, err
	}
	s, err := NewStore(dir)
	if err != nil {
		return false, err
	}
	_, err = s.Get(ref.Digest)
	return err == nil, nil
}

// isLastRecord reports whether the pack at path ends with ref's record,
// whole. A pack that does not exist holds nothing.
func isLastRecord(path string, ref Ref) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("artifact: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("artifact: %w", err)
	}
	header := fmt.Sprintf("%s %d\n", ref.Digest, ref.Size)
	n := int64(len(header)) + ref.Size + 1
	if ref.Size < 0 || st.Size() < n {
		return false, nil
	}
	rec := make([]byte, n)
	if _, err := f.ReadAt(rec, st.Size()-n); err != nil {
		return false, fmt.Errorf("artifact: %w", err)
	}
	content := rec[len(header) : n-1]
	sum := sha256.Sum256(content)
	return string(rec[:len(header)]) == header && rec[n-1] == '\n' && "sha256:"+hex.EncodeToString(sum[:]) == ref.Digest, nil
}

// Put stores data, durably (its bytes and the pack's name are synced before
// it returns), and returns its reference. Storing the same bytes twice
// stores them once.
func (s *Store) Put(data []byte) (Ref, error) {
	ref, durable, err := s.Write(data)
	if err == nil {
		err = durable()
	}
	if err != nil {
		return Ref{}, err
	}
	return ref, nil
}

// Write stores data without waiting for it to be durable: the record is
// written, Get reads it at once, and durable makes it durable (the pack's
// bytes, and its name when the store created it). A caller that names the
// artifact in a record of its own calls durable first, or side by side
// with the sync of that record (eventlog's StageAfter), and then checks,
// after a crash, that the record's artifact is whole (Get). durable may
// be called any number of times, from any goroutine.
func (s *Store) Write(data []byte) (ref Ref, durable func() error, err error) {
	sum := sha256.Sum256(data)
	ref = Ref{Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, ok := s.index[ref.Digest]
	if !ok {
		if sp, err = s.appendLocked(ref, data); err != nil {
			return Ref{}, nil, fmt.Errorf("artifact: %w", err)
		}
	}
	end := sp.off + sp.size + 1
	return ref, func() error { return s.syncTo(end) }, nil
}

// appendLocked writes one record at the end of the pack, unsynced.
func (s *Store) appendLocked(ref Ref, data []byte) (span, error) {
	if s.pack == nil {
		f, err := os.OpenFile(s.packPath(), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return span{}, err
		}
		s.pack = f
	}
	s.idle = false
	header := fmt.Sprintf("%s %d\n", ref.Digest, ref.Size)
	rec := make([]byte, 0, len(header)+len(data)+1)
	rec = append(append(append(rec, header...), data...), '\n')
	if _, err := s.pack.WriteAt(rec, s.end); err != nil { // over a record cut short, if a crash left one
		return span{}, err
	}
	sp := span{off: s.end + int64(len(header)), size: ref.Size}
	s.index[ref.Digest] = sp
	s.end += int64(len(rec))
	return sp, nil
}

// Release closes the pack's descriptor, which the store keeps open from a
// write on: a run's store lives as long as the harness does, and holds a
// descriptor only while its run is active. A sync in flight keeps it until
// it ends; a later Write opens the pack again.
func (s *Store) Release() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.syncs > 0 {
		s.idle = true
		return nil
	}
	return s.closeLocked()
}

func (s *Store) closeLocked() error {
	s.idle = false
	if s.pack == nil {
		return nil
	}
	err := s.pack.Close()
	s.pack = nil
	if err != nil {
		return fmt.Errorf("artifact: %w", err)
	}
	return nil
}

// syncTo makes the pack durable up to end, and its name with it, unless
// an earlier sync did already. Syncs run outside s.mu, so that writes go
// on meanwhile; one that fails leaves what it covered to the next.
func (s *Store) syncTo(end int64) error {
	s.mu.Lock()
	if s.synced >= end {
		s.mu.Unlock()
		return nil
	}
	f, named, covered := s.pack, s.named, s.end // covered: everything written before the sync starts
	if f != nil {
		s.syncs++
	}
	s.mu.Unlock()
	err := s.sync(f, named)
	s.mu.Lock()
	defer s.mu.Unlock()
	if f != nil {
		if s.syncs--; s.syncs == 0 && s.idle {
			s.closeLocked()
		}
	}
	if err != nil {
		return fmt.Errorf("artifact: %w", err)
	}
	s.synced, s.named = max(s.synced, covered), true
	return nil
}

// sync syncs the pack through f, or a descriptor of its own when f is nil
// (the store released it), and the pack's directory unless named.
func (s *Store) sync(f *os.File, named bool) error {
	var err error
	if f != nil {
		err = f.Sync()
	} else if f, err = os.OpenFile(s.packPath(), os.O_RDWR, 0); err == nil {
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil && !named {
		// The event log may name the artifact as soon as this returns:
		// the pack's directory entry must be as durable as its bytes.
		err = syncDir(s.dir)
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Get returns the content of the artifact with the given digest.
func (s *Store) Get(digest string) ([]byte, error) {
	if !validDigest(digest) {
		return nil, fmt.Errorf("artifact: malformed digest %q", digest)
	}
	data, err := s.read(digest)
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != digest {
		return nil, errors.New("artifact: content does not match its digest " + digest)
	}
	return data, nil
}

// read returns an artifact's bytes from the pack, or from a file of its
// own in a store written before packs.
func (s *Store) read(digest string) ([]byte, error) {
	s.mu.Lock()
	sp, ok := s.index[digest]
	s.mu.Unlock()
	if !ok {
		return os.ReadFile(filepath.Join(s.dir, strings.TrimPrefix(digest, "sha256:")))
	}
	f, err := os.Open(s.packPath())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, sp.size)
	if _, err := f.ReadAt(data, sp.off); err != nil && !(errors.Is(err, io.EOF) && sp.size == 0) {
		return nil, err
	}
	return data, nil
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// Summarize returns text bounded to limit bytes: text itself when it fits,
// otherwise its head (cut on a rune boundary) and a marker naming the total
// size and the artifact that holds everything.
func Summarize(text string, ref Ref, limit int) string {
	if limit <= 0 {
		limit = DefaultSummaryBytes
	}
	if len(text) <= limit {
		return text
	}
	marker := fmt.Sprintf("\n[truncated: showing %%d of %d bytes; the full result is artifact %s]", len(text), ref.Digest)
	keep := limit - len(fmt.Sprintf(marker, limit))
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart(text[keep]) {
		keep--
	}
	return text[:keep] + fmt.Sprintf(marker, keep)
}

// Unsupported is what a model receives for content it cannot be given yet.
func Unsupported(kinds []string, ref Ref) string {
	return fmt.Sprintf("[content of type %s is not supported yet; the raw JSON (%d bytes) is artifact %s]",
		strings.Join(kinds, ", "), ref.Size, ref.Digest)
}
