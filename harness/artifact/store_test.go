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

// writePack appends records to the pack in dir as a store written before
// run logs held artifacts did, and returns their references.
func writePack(t *testing.T, dir string, contents ...string) []Ref {
	t.Helper()
	var refs []Ref
	var text strings.Builder
	for _, c := range contents {
		ref := Of([]byte(c))
		fmt.Fprintf(&text, "%s %d\n%s\n", ref.Digest, ref.Size, c)
		refs = append(refs, ref)
	}
	appendFile(t, filepath.Join(dir, packName), text.String())
	return refs
}

func TestOfCheck(t *testing.T) {
	data := []byte("hello artifact")
	ref := Of(data)
	if sum := sha256.Sum256(data); ref.Digest != fmt.Sprintf("sha256:%x", sum) || ref.Size != int64(len(data)) {
		t.Fatalf("Of = %v", ref)
	}
	if err := Check(ref.Digest, data); err != nil {
		t.Errorf("Check of the artifact's own bytes: %v", err)
	}
	if err := Check(ref.Digest, []byte("hello artifacT")); err == nil {
		t.Error("Check of other bytes succeeded")
	}
	for _, bad := range []string{"", "sha256:../../etc/passwd", "md5:00", "sha256:" + strings.Repeat("z", 64)} {
		if err := Check(bad, data); err == nil {
			t.Errorf("Check(%q) succeeded", bad)
		}
	}
}

// TestPackRead: what a pack holds is read back, up to whatever a crash
// left after its last whole record; a header whose content is lost (zeros
// of the right size) is not taken for the artifact.
func TestPackRead(t *testing.T) {
	secondText := "second\nwith a newline"
	lost := Of([]byte(secondText))
	lostHeader := fmt.Sprintf("%s %d\n", lost.Digest, lost.Size)
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
			refs := writePack(t, dir, "first", "")
			appendFile(t, filepath.Join(dir, packName), tt.tail)
			s := mustStore(t, dir)
			for i, want := range []string{"first", ""} {
				if got, err := s.Get(refs[i].Digest); err != nil || string(got) != want {
					t.Errorf("Get(%s) = %q, %v; want %q", refs[i].Digest, got, err, want)
				}
			}
			if _, err := s.Get(lost.Digest); err == nil {
				t.Error("an artifact whose content was lost was read")
			}
		})
	}
	if s := mustStore(t, filepath.Join(t.TempDir(), "none")); len(s.index) != 0 {
		t.Error("a store without a directory holds something")
	}
}

// TestLegacyFiles: a store written when each artifact was a file named by
// its digest is still read, and a file that does not match its name is
// refused.
func TestLegacyFiles(t *testing.T) {
	dir := t.TempDir()
	data := []byte("stored as a file of its own")
	ref := Of(data)
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
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
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
			for _, p := range tt.put {
				writePack(t, dir, p+" stored")
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
