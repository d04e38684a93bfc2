package artifact

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPutGet(t *testing.T) {
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello artifact")
	ref, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Put(data)
	if err != nil || again != ref {
		t.Fatalf("second Put = %v, %v; want %v", again, err, ref)
	}
	got, err := s.Get(ref.Digest)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	for _, bad := range []string{"", "sha256:../../etc/passwd", "md5:00", "sha256:" + strings.Repeat("z", 64)} {
		if _, err := s.Get(bad); err == nil {
			t.Errorf("Get(%q) succeeded", bad)
		}
	}
}

// TestReopen: what one store put, a store opened later on the same
// directory reads, whatever a crash left after the last whole record; the
// next Put writes over that rest. A header whose content is lost (zeros
// of the right size) is not taken for the artifact when its bytes are
// stored again.
func TestReopen(t *testing.T) {
	secondText := "second\nwith a newline"
	sum := sha256.Sum256([]byte(secondText))
	lostHeader := fmt.Sprintf("sha256:%x %d\n", sum, len(secondText))
	tails := []struct{ name, tail string }{
		{"content lost", lostHeader + strings.Repeat("\x00", len(secondText)) + "\n"},
		{"content lost, no newline", lostHeader + strings.Repeat("\x00", len(secondText)+1)},
		{"clean", ""},
		{"header cut short", "sha256:ab"},
		{"content cut short", "sha256:" + strings.Repeat("a", 64) + " 100\nonly a little"},
		{"zeros", "\x00\x00\x00\x00\x00\x00\x00\x00\n\x00"},
		{"not a header", "garbage 12\nwhatever\n"},
	}
	for _, tt := range tails {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustStore(t, dir)
			first := mustPut(t, s, []byte("first"))
			empty := mustPut(t, s, nil)
			appendFile(t, filepath.Join(dir, packName), tt.tail)

			s = mustStore(t, dir)
			second := mustPut(t, s, []byte(secondText))
			if pack, err := os.ReadFile(filepath.Join(dir, packName)); err != nil || bytes.IndexByte(pack, 0) >= 0 {
				t.Errorf("the pack holds a hole or what was cut short: %q, %v", pack, err)
			}
			s = mustStore(t, dir)
			for ref, want := range map[Ref]string{first: "first", empty: "", second: secondText} {
				if got, err := s.Get(ref.Digest); err != nil || string(got) != want {
					t.Errorf("Get(%s) = %q, %v; want %q", ref.Digest, got, err, want)
				}
			}
		})
	}
}

// TestLegacyFiles: a store written when each artifact was a file named by
// its digest is still read, and a file that does not match its name is
// refused.
func TestLegacyFiles(t *testing.T) {
	dir := t.TempDir()
	data := []byte("stored as a file of its own")
	ref := mustPut(t, mustStore(t, t.TempDir()), data)
	hexName := strings.TrimPrefix(ref.Digest, "sha256:")
	if err := os.WriteFile(filepath.Join(dir, hexName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustStore(t, dir)
	if got, err := s.Get(ref.Digest); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, hexName), []byte("changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ref.Digest); err == nil {
		t.Fatal("Get of a file that does not match its digest succeeded")
	}
}

func mustStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPut(t *testing.T, s *Store, data []byte) Ref {
	t.Helper()
	ref, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.WriteString(text)
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestSummarize(t *testing.T) {
	ref := Ref{Digest: "sha256:" + strings.Repeat("a", 64), Size: 100000}
	tests := []struct {
		name  string
		text  string
		limit int
		cut   bool
	}{
		{"fits", "short", 100, false},
		{"exact", strings.Repeat("x", 200), 200, false},
		{"over", strings.Repeat("x", 100000), 16 << 10, true},
		{"multibyte", strings.Repeat("é", 50000), 16 << 10, true},
		{"tiny limit", strings.Repeat("x", 500), 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.text, ref, tt.limit)
			if !tt.cut {
				if got != tt.text {
					t.Fatalf("changed text that fits")
				}
				return
			}
			if tt.limit > 200 && len(got) > tt.limit {
				t.Errorf("summary is %d bytes; limit %d", len(got), tt.limit)
			}
			if !utf8.ValidString(got) {
				t.Error("summary is not valid UTF-8")
			}
			if !strings.Contains(got, "[truncated:") || !strings.Contains(got, ref.Digest) {
				t.Errorf("no marker with the artifact: %q", got[max(0, len(got)-200):])
			}
		})
	}
}

// TestWriteThenDurable: Write stores at once and syncs only when asked; a
// store opened again does not take what it finds for synced, so the same
// bytes written again are synced before anything may name them.
func TestWriteThenDurable(t *testing.T) {
	dir := t.TempDir()
	s := mustStore(t, dir)
	data := []byte("an answer")
	ref, durable, err := s.Write(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ref.Digest); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get before durable = %q, %v", got, err)
	}
	if s.synced != 0 || s.named {
		t.Fatalf("Write synced (to %d, named %v) before durable was called", s.synced, s.named)
	}
	for range 2 { // any number of times
		if err := durable(); err != nil {
			t.Fatal(err)
		}
	}
	if s.synced != s.end || !s.named {
		t.Errorf("after durable: synced to %d of %d, named %v", s.synced, s.end, s.named)
	}

	s = mustStore(t, dir)
	if s.synced != 0 || s.named {
		t.Errorf("a reopened store takes its pack for synced (to %d, named %v)", s.synced, s.named)
	}
	again, durable, err := s.Write(data)
	if err != nil || again != ref {
		t.Fatalf("Write again = %v, %v; want %v", again, err, ref)
	}
	if err := durable(); err != nil || s.synced != s.end || !s.named {
		t.Errorf("durable of bytes found on reopening: %v; synced to %d of %d, named %v", err, s.synced, s.end, s.named)
	}
}

// TestHolds: Holds finds an artifact whole at the pack's end by reading
// only that, anywhere else by opening the store, and refuses one whose
// bytes were lost.
func TestHolds(t *testing.T) {
	tests := []struct {
		name string
		put  []string // stored in this order
		ask  string
		size int64 // -1: the artifact's own
		lose bool  // zero the asked artifact's bytes
		want bool
	}{
		{"last", []string{"a", "b"}, "b", -1, false, true},
		{"earlier", []string{"a", "b"}, "a", -1, false, true},
		{"size of a whole answer cut short", []string{"head"}, "head", 1000, false, true},
		{"last, lost", []string{"a", "b"}, "b", -1, true, false},
		{"earlier, lost", []string{"a", "b"}, "a", -1, true, false},
		{"never stored", []string{"a"}, "z", -1, false, false},
		{"no pack", nil, "z", -1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustStore(t, dir)
			for _, p := range tt.put {
				mustPut(t, s, []byte(p+" stored"))
			}
			sum := sha256.Sum256([]byte(tt.ask + " stored"))
			ref := Ref{Digest: fmt.Sprintf("sha256:%x", sum), Size: int64(len(tt.ask + " stored"))}
			if tt.lose {
				pack := filepath.Join(dir, packName)
				data, _ := os.ReadFile(pack)
				i := bytes.Index(data, []byte(tt.ask+" stored"))
				clear(data[i : i+int(ref.Size)])
				os.WriteFile(pack, data, 0o600)
			}
			if tt.size >= 0 {
				ref.Size = tt.size
			}
			if got, err := Holds(dir, ref); err != nil || got != tt.want {
				t.Errorf("Holds = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestRelease: a store keeps its pack open from a Write to Release, and a
// sync or a Write after Release still works (a Write opens it again).
func TestRelease(t *testing.T) {
	s := mustStore(t, t.TempDir())
	_, durable, err := s.Write([]byte("first"))
	if err != nil {
		t.Fatal(err)
	}
	if s.pack == nil {
		t.Fatal("no descriptor kept after a Write")
	}
	if err := s.Release(); err != nil || s.pack != nil {
		t.Fatalf("Release: %v; descriptor kept: %v", err, s.pack != nil)
	}
	if err := durable(); err != nil || s.pack != nil {
		t.Fatalf("durable after Release: %v; descriptor kept: %v", err, s.pack != nil)
	}
	ref := mustPut(t, s, []byte("second"))
	if got, err := s.Get(ref.Digest); err != nil || string(got) != "second" {
		t.Fatalf("Get after writing again = %q, %v", got, err)
	}
	if err := s.Release(); err != nil || s.pack != nil {
		t.Fatalf("second Release: %v; descriptor kept: %v", err, s.pack != nil)
	}
}
