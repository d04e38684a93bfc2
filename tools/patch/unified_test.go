package patch_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestDiffsFromGit makes changes with git itself, feeds `git diff` to
// generate_patch, and checks that the proposal's tree is the tree git
// committed: the parser and the exact application agree with git on the
// cases that matter (no final newline, on either side; deletions; new
// files; renames with and without edits; mode changes; several hunks).
func TestDiffsFromGit(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"edit", func(t *testing.T, dir string) { write(t, dir, "docs/a.txt", "alpha\nBETA\ngamma\n") }},
		{"drop final newline", func(t *testing.T, dir string) { write(t, dir, "docs/a.txt", "alpha\nbeta\ngamma") }},
		{"add final newline", func(t *testing.T, dir string) {
			write(t, dir, "docs/a.txt", "alpha\nbeta\ngamma")
			gitfixture.Git(t, dir, "commit", "-qam", "no newline")
			write(t, dir, "docs/a.txt", "alpha\nbeta\ngamma\n")
		}},
		{"edit without final newline", func(t *testing.T, dir string) {
			write(t, dir, "docs/a.txt", "alpha\nbeta\ngamma")
			gitfixture.Git(t, dir, "commit", "-qam", "no newline")
			write(t, dir, "docs/a.txt", "alpha\nbeta\nGAMMA")
		}},
		{"new and deleted files", func(t *testing.T, dir string) {
			write(t, dir, "new/x.go", "package x\n")
			write(t, dir, "empty.txt", "")
			os.Remove(filepath.Join(dir, "main.go"))
		}},
		{"rename", func(t *testing.T, dir string) { gitfixture.Git(t, dir, "mv", "docs/a.txt", "docs/renamed.txt") }},
		{"rename with an edit", func(t *testing.T, dir string) {
			write(t, dir, "greet2.go", strings.Replace(readFile(t, dir, "greet_test.go"), "hello", "hi", 1))
			os.Remove(filepath.Join(dir, "greet_test.go"))
		}},
		{"mode change", func(t *testing.T, dir string) { os.Chmod(filepath.Join(dir, "main.go"), 0o755) }},
		{"rename and mode change", func(t *testing.T, dir string) {
			gitfixture.Git(t, dir, "mv", "docs/a.txt", "docs/run.sh")
			os.Chmod(filepath.Join(dir, "docs/run.sh"), 0o755)
		}},
		{"many hunks", func(t *testing.T, dir string) {
			var lines []string
			for i := range 60 {
				lines = append(lines, strings.Repeat("x", i%7)+"\n")
			}
			write(t, dir, "long.txt", strings.Join(lines, ""))
			gitfixture.Git(t, dir, "add", "long.txt")
			gitfixture.Git(t, dir, "commit", "-qm", "long")
			lines[3], lines[30], lines[59] = "three\n", "thirty\n", "last\n"
			lines = append(lines[:10], lines[12:]...)
			write(t, dir, "long.txt", strings.Join(lines, ""))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			dir := f.dir
			gitfixture.Git(t, dir, "config", "user.name", "t")
			gitfixture.Git(t, dir, "config", "user.email", "t@t")
			tt.change(t, dir)
			gitfixture.Git(t, dir, "add", "-A")
			diff := gitfixture.Git(t, dir, "diff", "--cached", "-M")
			for name, marker := range map[string]string{"rename": "rename from", "rename with an edit": "similarity index", "mode change": "new mode 100755",
				"drop final newline": "No newline", "new and deleted files": "deleted file mode"} {
				if tt.name == name && !strings.Contains(diff, marker) {
					t.Fatalf("git's diff lacks %q:\n%s", marker, diff)
				}
			}
			base := strings.TrimSpace(gitfixture.Git(t, dir, "rev-parse", "HEAD"))
			gitfixture.Git(t, dir, "commit", "-qm", "by git")
			want := strings.TrimSpace(gitfixture.Git(t, dir, "rev-parse", "HEAD^{tree}"))
			g := ok[generated](t, f, "generate_patch", map[string]any{"revision": base, "diff": diff})
			if got := strings.TrimSpace(gitfixture.Git(t, dir, "rev-parse", g.PatchID+"^{tree}")); got != want {
				t.Errorf("tree %s, git made %s; diff:\n%s\nours:\n%s", got, want, diff, g.Diff)
			}
			// The same diff as a model might write it (no a/ b/ prefixes,
			// every header 7 lines off, wrong counts) is the same proposal,
			// or refused as ambiguous: never another tree.
			res := f.call(t, "generate_patch", map[string]any{"revision": base, "diff": mangle(diff)})
			switch {
			case res.IsError && !strings.Contains(res.Text, " places"):
				t.Errorf("the mangled diff was refused for another reason than ambiguity: %s\n%s", res.Text, mangle(diff))
			case !res.IsError:
				var m generated
				if err := json.Unmarshal(res.Structured, &m); err != nil || m.PatchID != g.PatchID {
					t.Errorf("the mangled diff made %s, not %s: %s", m.PatchID, g.PatchID, res.Text)
				}
			}
			// Our own diff, fed back, is the same proposal.
			if again := ok[generated](t, f, "generate_patch", map[string]any{"revision": base, "diff": g.Diff}); again.PatchID != g.PatchID {
				t.Errorf("our diff fed back made %s, not %s:\n%s", again.PatchID, g.PatchID, g.Diff)
			}
		})
	}
}

// mangle rewrites a git diff as models get it wrong: the ---/+++ names
// lose their a/ and b/, and every hunk header is 7 lines off with old and
// new counts too large.
func mangle(diff string) string {
	header := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
	var b strings.Builder
	for l := range strings.Lines(diff) {
		switch m := header.FindStringSubmatch(l); {
		case strings.HasPrefix(l, "--- a/"), strings.HasPrefix(l, "+++ b/"):
			l = l[:4] + l[6:]
		case m != nil:
			n := func(s string, add int) int { v, _ := strconv.Atoi(s); return v + add }
			l = fmt.Sprintf("@@ -%d,%d +%d,%d @@\n", n(m[1], 7), n(m[2], 2), n(m[3], 7), n(m[4], 5))
		}
		b.WriteString(l)
	}
	return b.String()
}

func write(t *testing.T, dir, p, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
	if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, dir, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
