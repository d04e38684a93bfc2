package gonav

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// fileSums are the content ids of a load's repository files: their git
// blob ids. An export this process wrote says each file's blob
// (workspace.ExportOptions.Exported), so a load of it reads and hashes
// no file: hashing every file was a tenth of a second revision's load.
// A file of an export found on disk is read and its blob id computed,
// which gives the same id, so a package's key does not depend on which
// process wrote the export.
type fileSums struct {
	blobs  map[string]string // by host path
	byPath map[string]string // computed: test variants share files
	hashed int               // files read and hashed
}

// newFileSums returns the sums of a load of the export whose tree is in
// dir, with the files the export wrote (nil when it was found on disk).
func newFileSums(dir string, files map[string]workspace.ExportedFile) *fileSums {
	s := &fileSums{blobs: make(map[string]string, len(files)), byPath: map[string]string{}}
	for path, f := range files {
		s.blobs[filepath.Join(dir, filepath.FromSlash(path))] = f.Blob
	}
	return s
}

// sum returns the blob id of the file at host.
func (s *fileSums) sum(host string) (string, error) {
	if id, ok := s.blobs[host]; ok {
		return id, nil
	}
	if id, ok := s.byPath[host]; ok {
		return id, nil
	}
	data, err := os.ReadFile(host)
	if err != nil {
		return "", err
	}
	h := sha1.New() // git's blob id; a repository in SHA-256 format gives other ids, which only costs checks
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	id := hex.EncodeToString(h.Sum(nil))
	s.byPath[host] = id
	s.hashed++
	return id, nil
}
