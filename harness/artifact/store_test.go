package artifact

import (
	"bytes"
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
