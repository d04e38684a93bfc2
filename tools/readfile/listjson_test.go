package readfile

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListJSONMatchesMarshal checks that a page encodes itself exactly as
// encoding/json encodes it, for pages empty and full, and strings that
// need each kind of escape, with sizes and without.
func TestListJSONMatchesMarshal(t *testing.T) {
	hostile := []string{
		"", "plain/path.go", `quote"back\slash`, "<html>&amp;", "tab\there\nnew\rret\bback\fform",
		"\x00\x01\x1f\x7f", "caf\u00e9 \u2028\u2029 \U0001F600", "bad\xffutf8\xc3", "\xe2\x80", strings.Repeat("é", 300),
	}
	var entries []FileEntry
	for i, s := range hostile {
		entries = append(entries, FileEntry{Path: s, Type: "file", Size: new(int64(i) << 40), Mode: "100644"})
		entries = append(entries, FileEntry{Path: "link/" + s, Type: "symlink", Size: new(int64(-1)), Mode: "120000", Target: s})
		entries = append(entries, FileEntry{Path: "unsized/" + s, Type: "file", Mode: "100755"})
		entries = append(entries, FileEntry{Path: "unsized-link/" + s, Type: "symlink", Mode: "120000", Target: s})
	}
	tests := []struct {
		name string
		out  ListFilesOut
	}{
		{"zero", ListFilesOut{}},
		{"empty entries", ListFilesOut{Revision: strings.Repeat("a", 40), Entries: []FileEntry{}, Total: 3, Omitted: 3}},
		{"full", ListFilesOut{
			Revision: "worktree", Path: "dir/<sub>", Entries: entries, Total: 1 << 40, Truncated: true,
			NextCursor: "eyJyIjoi", Omitted: -1, Invalid: 7,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.out.AppendJSON([]byte("prefix")); string(got) != "prefix"+string(want) {
				t.Errorf("AppendJSON:\n got %s\nwant prefix%s", got, want)
			}
		})
	}
}
