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

// Of returns the reference of data: its digest and size.
func Of(data []byte) Ref {
	sum := sha256.Sum256(data)
	return Ref{Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
}

// Check returns an error unless data is the content digest names.
func Check(digest string, data []byte) error {
	if !validDigest(digest) {
		return fmt.Errorf("artifact: malformed digest %q", digest)
	}
	if Of(data).Digest != digest {
		return errors.New("artifact: content does not match its digest " + digest)
	}
	return nil
}

// packName is the file, in a store's directory, that its artifacts were
// appended to.
const packName = "pack"

// Store reads the artifacts of a run recorded before a run's log held
// them (eventlog), from the directory they were stored in: appended to
// one file, each record a header line ("sha256:<hex> <size>\n"), the
// content and a newline, or, earlier still, a file per artifact named by
// its digest's hex.
//
// A Store is safe for concurrent use.
type Store struct {
	dir   string
	index map[string]span // by digest: where the pack holds each artifact
}

// span is where the pack holds an artifact's content.
type span struct{ off, size int64 }

// OpenStore returns the store in dir, which need not exist, and indexes
// what its pack holds. A record cut short or garbled (the process or the
// machine died while appending it) ends what is indexed.
func OpenStore(dir string) (*Store, error) {
	s := &Store{dir: dir, index: make(map[string]span)}
	f, err := os.Open(s.packPath())
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	defer f.Close()
	scan(bufio.NewReader(f), s.index)
	return s, nil
}

// scan indexes the whole records of a pack into index: a record cut
// short, a header that is not one, or
// content that does not match its digest ends the scan. A crash can leave
// any of them where an unsynced record was being written (zeros, or the
// header without its content).
func scan(r *bufio.Reader, index map[string]span) {
	var end int64
	h := sha256.New()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return // at the end, or a header cut short
		}
		digest, sizeText, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		size, serr := strconv.ParseInt(sizeText, 10, 64)
		if !ok || serr != nil || size < 0 || !validDigest(digest) {
			return
		}
		h.Reset()
		if n, _ := io.CopyN(h, r, size); n < size {
			return // content cut short
		}
		if nl, err := r.ReadByte(); err != nil || nl != '\n' || "sha256:"+hex.EncodeToString(h.Sum(nil)) != digest {
			return
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
	s, err := OpenStore(dir)
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
	return string(rec[:len(header)]) == header && rec[n-1] == '\n' && Of(content).Digest == ref.Digest, nil
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
	if err := Check(digest, data); err != nil {
		return nil, err
	}
	return data, nil
}

// read returns an artifact's bytes from the pack, or from a file of its
// own in a store written before packs.
func (s *Store) read(digest string) ([]byte, error) {
	sp, ok := s.index[digest]
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
