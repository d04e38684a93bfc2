package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// Store is a directory of artifacts named by the SHA-256 of their content.
type Store struct {
	dir string
}

// NewStore returns the store in dir, creating dir if needed.
func NewStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Put stores data, durably, and returns its reference. Storing the same
// bytes twice stores them once.
func (s *Store) Put(data []byte) (Ref, error) {
	sum := sha256.Sum256(data)
	ref := Ref{Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
	path := s.path(ref.Digest)
	if _, err := os.Stat(path); err == nil {
		return ref, nil
	}
	tmp, err := os.CreateTemp(s.dir, ".put-*")
	if err != nil {
		return Ref{}, fmt.Errorf("artifact: %w", err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return Ref{}, fmt.Errorf("artifact: %w", err)
	}
	// The event log may name the artifact as soon as Put returns: its
	// directory entry must be as durable as its bytes.
	if err := s.syncDir(); err != nil {
		return Ref{}, fmt.Errorf("artifact: %w", err)
	}
	return ref, nil
}

func (s *Store) syncDir() error {
	d, err := os.Open(s.dir)
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
	data, err := os.ReadFile(s.path(digest))
	if err != nil {
		return nil, fmt.Errorf("artifact: %w", err)
	}
	if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != digest {
		return nil, errors.New("artifact: content does not match its digest " + digest)
	}
	return data, nil
}

// Path is the file holding the artifact with the given digest.
func (s *Store) Path(digest string) string { return s.path(digest) }

func (s *Store) path(digest string) string {
	return filepath.Join(s.dir, strings.TrimPrefix(digest, "sha256:"))
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
