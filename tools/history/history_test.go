package history_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/history"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// secrets are what the fixture's history hides: the names and content of
// files the secret patterns deny. No answer may hold any of them.
var secrets = []string{".env", "hunter2", "id_rsa", "PRIVATE KEY", "fixture@example.com"}

// fixture is a small history served by the history tools: c1 adds files
// and a secret, c2 edits, renames and edits the secret, c3 touches only
// the secret, c4 deletes a file and adds a binary.
type fixture struct {
	dir     string
	commits []string // c1..c4
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	repo := gitfixture.New(t)
	f := &fixture{dir: repo.Dir}
	files := map[string]gitfixture.File{
		"README.md":     gitfixture.Text("hello\n"),
		"src/a.go":      gitfixture.Text("package a\n\nfunc A() {}\n"),
		"docs/guide.md": gitfixture.Text(strings.Repeat("a guide line\n", 20)),
		".env":          gitfixture.Text("TOKEN=hunter2\n"),
		"keys/id_rsa":   gitfixture.Text("PRIVATE KEY\n"),
	}
	f.commits = append(f.commits, repo.Commit(t, "c1 first", files))
	delete(files, "docs/guide.md")
	files["docs/manual.md"] = gitfixture.Text(strings.Repeat("a guide line\n", 20) + "one more\n")
	files["src/a.go"] = gitfixture.Text("package a\n\nfunc A() {}\n\nfunc B() {}\n")
	files[".env"] = gitfixture.Text("TOKEN=hunter2\nMORE=hunter2\n")
	f.commits = append(f.commits, repo.Commit(t, "c2 second commit", files))
	files[".env"] = gitfixture.Text("TOKEN=hunter2-again\n")
	f.commits = append(f.commits, repo.Commit(t, "c3 only the secret", files))
	delete(files, "README.md")
	files["src/b.bin"] = gitfixture.Text("\x00\x01binary")
	f.commits = append(f.commits, repo.Commit(t, "c4 the fourth commit", files))
	return f
}

// client serves the fixture to caller, whose policy may restrict paths.
func (f *fixture) client(t *testing.T, caller string, allow ...string) *servertest.Client {
	t.Helper()
	cfg := workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "repo", Root: f.dir}},
		Policies: []workspace.PolicyConfig{
			{Identity: caller, Workspaces: []string{"repo"}, Actions: []workspace.Action{workspace.ActionRead}, Allow: allow},
		},
	}
	reg, err := workspace.Open(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	s := server.New(server.Info{Name: "t"}, server.Options{
		Caller:    caller,
		Logger:    slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Audit:     io.Discard,
		Authorize: toolkit.Authorizer(reg),
	})
	if err := history.Register(s, reg, history.Options{HideEmails: true}); err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, s)
}

// call makes a call and fails if the answer holds a secret.
func call(t *testing.T, c *servertest.Client, tool string, args map[string]any) *servertest.Result {
	t.Helper()
	args["workspace_id"] = "repo"
	res := c.Call(tool, args)
	all := res.Text + string(res.Structured)
	asked, _ := json.Marshal(args)
	for _, s := range secrets {
		// An error may quote the caller's own input, nothing else.
		if strings.Contains(all, s) && !strings.Contains(string(asked), s) {
			t.Fatalf("%s %v: the answer holds %q:\n%s", tool, args, s, all)
		}
	}
	return res
}

func decode[T any](t *testing.T, res *servertest.Result) T {
	t.Helper()
	if res.IsError {
		t.Fatalf("error: %s", res.Text)
	}
	var v T
	if err := json.Unmarshal(res.Structured, &v); err != nil {
		t.Fatalf("decoding %s: %v", res.Structured, err)
	}
	return v
}

func shas(out history.HistoryOut) []string {
	var s []string
	for _, c := range out.Commits {
		s = append(s, c.SHA)
	}
	return s
}

func TestLogPagesWithCursor(t *testing.T) {
	f := newFixture(t)
	c := f.client(t, "local")
	first := decode[history.HistoryOut](t, call(t, c, "history", map[string]any{"limit": 3}))
	if len(first.Commits) != 3 || !first.Truncated || first.NextCursor == "" {
		t.Fatalf("first page: %d commits, truncated %v, cursor %q", len(first.Commits), first.Truncated, first.NextCursor)
	}
	next := decode[history.HistoryOut](t, call(t, c, "history", map[string]any{"limit": 3, "cursor": first.NextCursor}))
	got := append(shas(first), shas(next)...)
	want := []string{f.commits[3], f.commits[2], f.commits[1], f.commits[0]}
	if fmt.Sprint(got) != fmt.Sprint(want) || next.Truncated {
		t.Fatalf("log pages = %v (truncated %v), want %v", got, next.Truncated, want)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"other arguments", map[string]any{"cursor": first.NextCursor, "path": "src"}, "invalid_input"},
		{"mangled", map[string]any{"cursor": first.NextCursor[:len(first.NextCursor)-2] + "AA"}, "invalid_input"},
		{"another revision", map[string]any{"cursor": first.NextCursor, "revision": f.commits[2]}, "precondition_failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, c, "history", tc.args)
			if res.ErrorClass() != tc.want {
				t.Fatalf("class %q (%s), want %s", res.ErrorClass(), res.Text, tc.want)
			}
		})
	}
}

// TestSecretsStayHidden asks every tool and mode about the history of a
// secret file; call fails on any answer that names or shows it.
func TestSecretsStayHidden(t *testing.T) {
	f := newFixture(t)
	c := f.client(t, "local")
	log := decode[history.HistoryOut](t, call(t, c, "history", map[string]any{"files": true}))
	if len(log.Commits) != 4 {
		t.Fatalf("log has %d commits, want all 4 (commits are not paths)", len(log.Commits))
	}
	if files := log.Commits[1].Files; len(files) != 0 {
		t.Fatalf("the commit that touched only the secret lists files %v", files)
	}
	for _, args := range []map[string]any{
		{"content_added": "hunter2"},
		{"content_regex": "TOKEN"},
		{"path": "keys"},
		{"message": "secret", "files": true},
	} {
		out := decode[history.HistoryOut](t, call(t, c, "history", args))
		for _, cm := range out.Commits {
			if cm.SHA == f.commits[2] && args["message"] == nil {
				t.Errorf("%v finds the commit that touched only the secret", args)
			}
		}
	}
	for _, sha := range f.commits {
		call(t, c, "diff", map[string]any{"commit": sha, "detail": "patch"})
	}
	d := decode[history.DiffOut](t, call(t, c, "diff", map[string]any{"base": f.commits[0], "head": f.commits[3], "detail": "patch"}))
	if d.TotalFiles != 4 {
		t.Errorf("diff c1..c4 has %d files, want 4 (README.md, manual.md renamed, a.go, b.bin): %+v", d.TotalFiles, d.Files)
	}
	for _, args := range []map[string]any{
		{"path": ".env", "mode": "blame"},
		{"path": ".env"},
		{"path": "keys/id_rsa", "mode": "blame"},
	} {
		if res := call(t, c, "history", args); res.ErrorClass() != "permission_denied" {
			t.Errorf("%v: class %q, want permission_denied", args, res.ErrorClass())
		}
	}
	if res := call(t, c, "diff", map[string]any{"base": f.commits[0], "path": ".env"}); res.ErrorClass() != "permission_denied" {
		t.Errorf("diff of .env: class %q, want permission_denied", res.ErrorClass())
	}
}

// TestAllowGlobsFilterHistory serves the fixture to a caller allowed only
// src/**: other paths appear nowhere.
func TestAllowGlobsFilterHistory(t *testing.T) {
	f := newFixture(t)
	c := f.client(t, "bob", "src/**")
	check := func(text string) {
		t.Helper()
		for _, p := range []string{"README.md", "docs/", "manual.md", "guide.md"} {
			if strings.Contains(text, p) {
				t.Errorf("answer names %s, outside src/**:\n%s", p, text)
			}
		}
	}
	res := call(t, c, "history", map[string]any{"files": true})
	check(res.Text + string(res.Structured))
	res = call(t, c, "diff", map[string]any{"base": f.commits[0], "head": f.commits[3], "detail": "patch"})
	check(res.Text + string(res.Structured))
	d := decode[history.DiffOut](t, res)
	if d.TotalFiles != 2 {
		t.Errorf("bob's diff has %d files, want 2 (src/a.go, src/b.bin)", d.TotalFiles)
	}
	if res := call(t, c, "history", map[string]any{"path": "docs"}); res.ErrorClass() != "permission_denied" {
		t.Errorf("bob's log of docs: class %q, want permission_denied", res.ErrorClass())
	}
	out := decode[history.HistoryOut](t, call(t, c, "history", map[string]any{"path": "src"}))
	if got, want := fmt.Sprint(shas(out)), fmt.Sprint([]string{f.commits[3], f.commits[1], f.commits[0]}); got != want {
		t.Errorf("bob's log of src = %v, want %v", got, want)
	}
}

func TestHostileInput(t *testing.T) {
	f := newFixture(t)
	c := f.client(t, "local")
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"history", map[string]any{"revision": "--output=/tmp/x"}},
		{"history", map[string]any{"revision": "HEAD@{1}"}},
		{"history", map[string]any{"revision": "HEAD..main"}},
		{"history", map[string]any{"revision": "HEAD:README.md"}},
		{"history", map[string]any{"path": "../outside"}},
		{"history", map[string]any{"path": "/etc/passwd"}},
		{"history", map[string]any{"path": ".git/config"}},
		{"history", map[string]any{"message": "(unclosed"}},
		{"history", map[string]any{"since": "last tuesday"}},
		{"history", map[string]any{"follow": true, "path": "src"}},
		{"history", map[string]any{"mode": "blame", "path": "src/a.go", "start_line": 99}},
		{"history", map[string]any{"mode": "blame", "path": "src/b.bin"}},
		{"history", map[string]any{"mode": "blame", "path": "src"}},
		{"history", map[string]any{"mode": "blame", "path": "src/a.go", "author": "x"}},
		{"diff", map[string]any{"commit": "-p"}},
		{"diff", map[string]any{"base": "HEAD~1..HEAD"}},
		{"diff", map[string]any{"base": "HEAD", "head": "main@{yesterday}"}},
		{"diff", map[string]any{"commit": "HEAD", "base": "HEAD~1"}},
		{"diff", map[string]any{}},
		{"diff", map[string]any{"base": "HEAD~1", "path": "../../etc"}},
	} {
		res := call(t, c, tc.tool, tc.args)
		if res.ErrorClass() != "invalid_input" {
			t.Errorf("%s %v: class %q (%s), want invalid_input", tc.tool, tc.args, res.ErrorClass(), res.Text)
		}
	}
}

func TestBlame(t *testing.T) {
	f := newFixture(t)
	c := f.client(t, "local")
	out := decode[history.HistoryOut](t, call(t, c, "history", map[string]any{"mode": "blame", "path": "src/a.go"}))
	want := []history.BlameHunk{
		{StartLine: 1, EndLine: 3, SHA: f.commits[0], OrigStartLine: 1},
		{StartLine: 4, EndLine: 5, SHA: f.commits[1], OrigStartLine: 4, PreviousSHA: f.commits[0], PreviousPath: "src/a.go"},
	}
	if fmt.Sprint(out.Hunks) != fmt.Sprint(want) {
		t.Fatalf("hunks = %+v, want %+v", out.Hunks, want)
	}
	renamed := decode[history.HistoryOut](t, call(t, c, "history", map[string]any{"mode": "blame", "path": "docs/manual.md", "start_line": 20}))
	if h := renamed.Hunks[0]; h.SHA != f.commits[0] || h.OrigPath != "docs/guide.md" || h.EndLine != 20 {
		t.Fatalf("line 20 of the renamed file: %+v, want c1's docs/guide.md", h)
	}
}

// TestLargeDiffsArePaged diffs a commit of 10,000 files and one of 50 MiB:
// every page stays within its bounds and the cursors cover the whole diff.
func TestLargeDiffsArePaged(t *testing.T) {
	repo := gitfixture.New(t)
	many := map[string]gitfixture.File{}
	for i := range 10000 {
		many[fmt.Sprintf("d%02d/f%05d.txt", i%100, i)] = gitfixture.Text(fmt.Sprintf("file %d\n", i))
	}
	wide := repo.Commit(t, "ten thousand files", many)
	line := strings.Repeat("x", 99) + "\n"
	big := map[string]gitfixture.File{}
	for i := range 5 {
		big[fmt.Sprintf("big%d.txt", i)] = gitfixture.Text(strings.Repeat(line, 100<<10)) // 10 MiB each
	}
	heavy := repo.Commit(t, "fifty mebibytes", big)
	f := &fixture{dir: repo.Dir}
	c := f.client(t, "local")

	seen := map[string]bool{}
	args := map[string]any{"commit": wide}
	for pages := 0; ; pages++ {
		res := call(t, c, "diff", args)
		if n := len(res.Text) + len(res.Structured); n > 3<<20 {
			t.Fatalf("a page of %d bytes", n)
		}
		out := decode[history.DiffOut](t, res)
		if out.TotalFiles != 10000 {
			t.Fatalf("total_files %d, want 10000", out.TotalFiles)
		}
		for _, fl := range out.Files {
			if seen[fl.Path] {
				t.Fatalf("%s listed twice", fl.Path)
			}
			seen[fl.Path] = true
		}
		if !out.Truncated {
			break
		}
		args["cursor"] = out.NextCursor
	}
	if len(seen) != 10000 {
		t.Fatalf("the pages listed %d files, want 10000", len(seen))
	}

	log := decode[history.HistoryOut](t, call(t, c, "history", map[string]any{"files": true}))
	if len(log.Commits) != 2 || len(log.Commits[1].Files) != 300 || log.Commits[1].FilesOmitted != 9700 {
		t.Fatalf("log with files: %d commits; the wide one lists %d files and omits %d, want 300 and 9700",
			len(log.Commits), len(log.Commits[len(log.Commits)-1].Files), log.Commits[len(log.Commits)-1].FilesOmitted)
	}

	args = map[string]any{"commit": heavy, "detail": "patch", "max_bytes": 1 << 20}
	var patch strings.Builder
	for range 3 {
		res := call(t, c, "diff", args)
		out := decode[history.DiffOut](t, res)
		if !out.Truncated || len(out.Files) != 1 || out.Files[0].Path != "big0.txt" {
			t.Fatalf("page: truncated %v, files %+v", out.Truncated, out.Files)
		}
		if n := len(res.Text); n > 1<<20+4<<10 {
			t.Fatalf("a patch page of %d bytes, budget 1 MiB", n)
		}
		_, body, _ := strings.Cut(res.Text, "Patch:\n")
		_, body, _ = strings.Cut(body, "\n````\n")
		body, _, _ = strings.Cut(body, "\n````")
		patch.WriteString(body + "\n")
		args["cursor"] = out.NextCursor
	}
	text := patch.String()
	if !strings.HasPrefix(text, "diff --git a/big0.txt b/big0.txt\nnew file mode 100644\n") || strings.Count(text, "+"+line) != strings.Count(text, "\n+")-1 {
		t.Fatalf("the pages do not join into one patch:\n%.300s", text)
	}
}
