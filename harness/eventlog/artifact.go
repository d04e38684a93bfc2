package eventlog

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// artifactLine is how a log holds an artifact: a call's raw answer, which
// the events of the call name by digest. Its bytes are base64, so that
// the line holds nothing a terminal interprets whatever the answer holds.
type artifactLine struct {
	Digest string `json:"artifact"`
	Size   int64  `json:"size"`
	Data   []byte `json:"base64"`
}

// StageArtifact writes an artifact (data, named by digest, which the
// caller computed) to the log, to be durable with the next Append or Sync,
// unless the log holds it already. Events written after it may name it: a
// crash that loses it loses them too, since a log stands only up to the
// first line a crash lost. The caller must not report an event naming it
// before that sync.
func (l *Log) StageArtifact(digest string, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usableLocked(); err != nil {
		return err
	}
	if _, ok := l.artifacts[digest]; ok {
		return nil
	}
	line, err := json.Marshal(artifactLine{Digest: digest, Size: int64(len(data)), Data: data})
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	off := l.end
	if err := l.writeLocked(append(line, '\n')); err != nil {
		return err
	}
	l.artifacts[digest] = span{off, int64(len(line)) + 1}
	return nil
}

// Artifact returns the bytes of an artifact the log holds, and false when
// it holds none by that digest. The caller checks them against the digest.
func (l *Log) Artifact(digest string) ([]byte, bool, error) {
	l.mu.Lock()
	s, ok := l.artifacts[digest]
	l.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	data, err := readArtifact(l.f, s, digest)
	return data, true, err
}

// ReadArtifact returns the bytes of an artifact the log at path holds,
// and false when it holds none by that digest. The caller checks them
// against the digest.
func ReadArtifact(path, digest string) ([]byte, bool, error) {
	c, err := read(path)
	if err != nil {
		return nil, false, err
	}
	s, ok := c.artifacts[digest]
	if !ok {
		return nil, false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, true, fmt.Errorf("eventlog: %w", err)
	}
	defer f.Close()
	data, err := readArtifact(f, s, digest)
	return data, true, err
}

// readArtifact decodes the artifact line at s of a log.
func readArtifact(r io.ReaderAt, s span, digest string) ([]byte, error) {
	line := make([]byte, s.len)
	if _, err := r.ReadAt(line, s.off); err != nil {
		return nil, fmt.Errorf("eventlog: artifact %s: %w", digest, err)
	}
	var a artifactLine
	if err := json.Unmarshal(line, &a); err != nil {
		return nil, fmt.Errorf("eventlog: artifact %s: %w", digest, err)
	}
	return a.Data, nil
}
