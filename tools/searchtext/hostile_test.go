package searchtext_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/tools/searchtext"
)

func TestSearchTextBadInput(t *testing.T) {
	st := newSetup(t)
	for _, tt := range []struct {
		args  map[string]any
		class string
	}{
		{map[string]any{"pattern": "x", "revision": "--output=x"}, "invalid_input"},
		{map[string]any{"pattern": "x", "revision": "no-such-branch"}, "not_found"},
		{map[string]any{"pattern": ""}, "invalid_input"},
		{map[string]any{"pattern": "[", "mode": "regexp"}, "invalid_input"},
		{map[string]any{"pattern": `a\1`, "mode": "regexp"}, "invalid_input"},   // backreference: not RE2
		{map[string]any{"pattern": `(?=a)`, "mode": "regexp"}, "invalid_input"}, // lookahead: not RE2
		{map[string]any{"pattern": "a\nb"}, "invalid_input"},                    // matches are within a line
		{map[string]any{"pattern": `a\nb`, "mode": "regexp"}, "invalid_input"},
		{map[string]any{"pattern": `((((a{100}){100}){100}){100})`, "mode": "regexp"}, "invalid_input"},
		{map[string]any{"pattern": strings.Repeat("x", searchtext.MaxPatternBytes)}, ""},
		{map[string]any{"pattern": strings.Repeat("x", searchtext.MaxPatternBytes+1)}, "invalid_input"},
		{map[string]any{"pattern": strings.Repeat("é", searchtext.MaxPatternBytes/2+1)}, "invalid_input"}, // the bound is in bytes
		{map[string]any{"pattern": "x", "mode": "glob"}, "invalid_input"},
		{map[string]any{"pattern": "x", "limit": 2001}, "invalid_input"},
		{map[string]any{"pattern": "x", "before": 11}, "invalid_input"},
		{map[string]any{"pattern": "x", "languages": []string{"cobol"}}, "invalid_input"},
		{map[string]any{"pattern": "x", "include": []string{"a\x00b"}}, "invalid_input"},
		{map[string]any{"pattern": "x", "include": []string{`a\b`}}, "invalid_input"},
		{map[string]any{"pattern": "x", "include": []string{"[z-a"}}, "invalid_input"},
		{map[string]any{"pattern": "x", "cursor": "garbage"}, "invalid_input"},
		{map[string]any{"pattern": "x", "Pattern": "y"}, "invalid_input"},
	} {
		_, res := search(t, st.alice, tt.args)
		if res.ErrorClass() != tt.class {
			t.Errorf("%.80v: class %q, want %q: %.200s", tt.args, res.ErrorClass(), tt.class, res.Text)
		}
	}
}

func TestSearchTextCatastrophicPatterns(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{
		"a.txt": gitfixture.Text(strings.Repeat("a", 100000) + "\n" + strings.Repeat("ab", 50000) + "!\n"),
	})
	c := singleClient(t, repo.Dir, searchtext.Options{})
	// Backtracking engines take exponential time on these; RE2 is linear.
	for _, p := range []string{`(a+)+$`, `(a|a)*b`, `(a*)*c`, `(x+x+)+y`, `^(a|aa)+$`, `(.*a){20}`, `(\w+\s?)+!$`} {
		out, res := search(t, c, map[string]any{"pattern": p, "mode": "regexp"})
		if res.IsError || !out.Complete {
			t.Errorf("%s: %s", p, res.Text)
		}
	}
}

func TestSearchTextNUL(t *testing.T) {
	repo := gitfixture.New(t)
	text := strings.Repeat("line\n", 2000) + "late\x00nul here\n" // a NUL after git's 8000 bytes: text
	repo.Commit(t, "first", map[string]gitfixture.File{
		"late.txt": gitfixture.Text(text),
		"bin.dat":  gitfixture.Text("nul\x00here\n"),
	})
	c := singleClient(t, repo.Dir, searchtext.Options{})
	out, res := search(t, c, map[string]any{"pattern": "nul"})
	if len(out.Matches) != 1 || out.Matches[0].Text != `late\x00nul here` || out.Skipped.Binary != 1 {
		t.Errorf("nul: %s", res.Text)
	}
	out, res = search(t, c, map[string]any{"pattern": "late\x00nul"})
	if res.IsError || len(out.Matches) != 1 {
		t.Errorf("a NUL in the pattern: %s", res.Text)
	}
}

func TestSearchTextHugeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: commits a 200 MiB file")
	}
	repo := gitfixture.New(t)
	huge := strings.Repeat("needle in a haystack\n", 200<<20/21+1)
	repo.Commit(t, "first", map[string]gitfixture.File{
		"huge.txt":  gitfixture.Text(huge),
		"small.txt": gitfixture.Text("needle\n"),
	})
	huge = ""
	c := singleClient(t, repo.Dir, searchtext.Options{})
	for range 2 { // scanned, then through the index
		out, res := search(t, c, map[string]any{"pattern": "needle"})
		if res.IsError || out.TotalMatches != 1 || out.Skipped.TooLarge != 1 || out.Skipped.MaxFileBytes != searchtext.DefaultMaxFileBytes {
			t.Errorf("200 MiB file: %s", res.Text)
		}
	}
}

func TestSearchTextManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: commits 100k files")
	}
	// git fast-import writes the 100k blobs into one pack, as a real
	// repository holds them, in seconds.
	var stream bytes.Buffer
	for i := range 100000 {
		content := fmt.Sprintf("file %d\n", i)
		fmt.Fprintf(&stream, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(content), content)
	}
	stream.WriteString("commit refs/heads/main\ncommitter F <f@example.com> 0 +0000\ndata 10\n100k files\n")
	for i := range 100000 {
		fmt.Fprintf(&stream, "M 100644 :%d d%02d/f%05d.txt\n", i+1, i%100, i)
	}
	dir := t.TempDir()
	gitfixture.Git(t, dir, "init", "-q", "-b", "main")
	gitfixture.GitInput(t, dir, &stream, "fast-import", "--quiet")
	c, svc := singleService(t, dir, searchtext.Options{})
	check := func(mustComplete bool) {
		out, res := search(t, c, map[string]any{"pattern": "file 99999", "whole_word": true})
		if res.IsError || (out.Complete || mustComplete) && hits(out) != "d99/f99999.txt:1:1" || out.Index.Files != 100000 {
			t.Errorf("100k files: %.300s", res.Text)
		}
		out, res = search(t, c, map[string]any{"pattern": "file", "output": "count"})
		if res.IsError || (out.Complete || mustComplete) && (out.TotalMatches != 100000 || out.TotalFiles != 100000) {
			t.Errorf("100k files, count: %.300s", res.Text)
		}
	}
	// The first search scans (and may run out of time on a slow machine:
	// it then says so); once indexed, searches complete.
	check(false)
	svc.WaitBuilds()
	check(true)
}

func TestSearchTextGlobTricks(t *testing.T) {
	st := newSetup(t)
	for _, g := range []string{"../**", "/etc/**", "**/../internal/**", "internal/secret/../secret/*", "**/.env", ".git/**",
		"internal/secret", "**/keys.go", "internal/*/keys.go", "**", "*"} {
		out, res := search(t, st.bob, map[string]any{"pattern": "secret", "include": []string{g}})
		if res.IsError && res.ErrorClass() != "invalid_input" {
			t.Errorf("include %q: %s", g, res.Text)
		}
		if strings.Contains(res.Text, "internal/secret/keys.go") || strings.Contains(string(res.Structured), "keys.go") || out.TotalMatches != 0 {
			t.Errorf("include %q shows bob a denied file: %s", g, res.Text)
		}
	}
}

func TestSearchTextForgedCursor(t *testing.T) {
	st := newSetup(t)
	first, _ := search(t, st.bob, map[string]any{"pattern": "e", "limit": 1})
	raw, err := base64.RawURLEncoding.DecodeString(first.NextCursor)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for _, forged := range []map[string]any{
		{"p": "internal/secret/keys.go", "l": 0},  // into a denied file
		{"p": "internal/secret/keys.go", "l": -1}, // a negative line
		{"p": "", "l": 1 << 40},
		{"p": "\x00../../etc/passwd", "l": 0},
	} {
		forged["k"] = c["k"] // a valid key: the cursor only moves the page start
		b, _ := json.Marshal(forged)
		out, res := search(t, st.bob, map[string]any{"pattern": "e", "limit": 2000, "cursor": base64.RawURLEncoding.EncodeToString(b)})
		if strings.Contains(res.Text, "internal/secret") || strings.Contains(string(res.Structured), "internal/secret") {
			t.Errorf("forged cursor %v leaks: %s", forged, res.Text)
		}
		if !res.IsError && out.TotalMatches != first.TotalMatches {
			t.Errorf("forged cursor %v changes the total: %d, want %d", forged, out.TotalMatches, first.TotalMatches)
		}
	}
	// A cursor of another search, or of the same search at another
	// revision, is refused.
	_, res := search(t, st.bob, map[string]any{"pattern": "x", "cursor": first.NextCursor})
	if res.ErrorClass() != "invalid_input" {
		t.Errorf("cursor of another pattern: %s", res.Text)
	}
	_, res = search(t, st.bob, map[string]any{"pattern": "e", "revision": "worktree", "cursor": first.NextCursor})
	if res.ErrorClass() != "invalid_input" {
		t.Errorf("cursor of another revision: %s", res.Text)
	}
}
