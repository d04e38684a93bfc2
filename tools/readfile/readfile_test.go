package readfile_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/readfile"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// fixture is a repository served by the read tools, with what a test needs
// to check answers against it.
type fixture struct {
	repo   *gitfixture.Repo
	root   string // must never appear in an answer
	head   string
	client *servertest.Client
	audit  *syncBuffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	// The repository sits beside a sibling whose name extends it, so a
	// prefix check would let ../repo-evil through.
	parent := t.TempDir()
	dir := filepath.Join(parent, "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(parent, "repo-evil"), 0o755)
	os.WriteFile(filepath.Join(parent, "repo-evil", "secret.txt"), []byte("outside secret"), 0o644)
	repo := gitfixture.Init(t, dir, false)
	head := repo.Commit(t, "first", map[string]gitfixture.File{
		"README.md":        gitfixture.Text("# Title\nline two\nline three\n"),
		"src/main.go":      gitfixture.Text("package main\n\nfunc main() {}\n"),
		"src/util/util.go": gitfixture.Text("package util\n"),
		"docs/ticks.md":    gitfixture.Text("run ```` this\n"),
		"no-newline.txt":   gitfixture.Text("a\nb"),
		"empty.txt":        gitfixture.Text(""),
		"bin.dat":          gitfixture.Text("\x00\x01\x02binary"),
		"latin1.txt":       gitfixture.Text("caf\xe9\n"),
		"long.txt":         gitfixture.Text(strings.Repeat("é", 5<<20) + "\n"),
		"link":             gitfixture.Link("src/main.go"),
		"escape":           gitfixture.Link("../../etc/passwd"),
		"absolute":         gitfixture.Link("/etc/passwd"),
		".env":             gitfixture.Text("TOKEN=hunter2\n"),
		"keys/id_rsa":      gitfixture.Text("PRIVATE\n"),
		"sub":              gitfixture.Gitlink("0123456789abcdef0123456789abcdef01234567"),
	})
	reg, err := workspace.Open(workspace.Config{Workspaces: []workspace.WorkspaceConfig{{ID: "repo", Root: dir}}}, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	audit := new(syncBuffer)
	s := server.New(server.Info{Name: "t"}, server.Options{
		Logger:    slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Audit:     audit,
		Authorize: toolkit.Authorizer(reg),
	})
	if err := readfile.Register(s, reg, readfile.Options{}); err != nil {
		t.Fatal(err)
	}
	return &fixture{repo: repo, root: dir, head: head, client: servertest.Start(t, s), audit: audit}
}

// syncBuffer collects the audit log, which the server writes from the
// goroutine of each call.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// call calls a tool and checks that nothing from the host leaks into any
// part of the answer.
func (f *fixture) call(t *testing.T, tool string, args any) *servertest.Result {
	t.Helper()
	res := f.client.Call(tool, args)
	all := res.Text + string(res.Structured)
	meta, _ := json.Marshal(res.Meta)
	all += string(meta)
	for _, leak := range []string{f.root, filepath.Dir(f.root), "outside secret", "hunter2", "PRIVATE", "root:x:"} {
		if strings.Contains(all, leak) {
			t.Fatalf("%s %v: the answer holds %q:\n%s", tool, args, leak, all)
		}
	}
	return res
}

func structured[T any](t *testing.T, res *servertest.Result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.Structured, &v); err != nil {
		t.Fatalf("structured content: %v: %s", err, res.Structured)
	}
	return v
}

func TestReadFile(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name      string
		args      map[string]any
		wantText  []string // substrings of the text content
		wantLines [2]int
		wantTrunc bool
	}{
		{"whole file", map[string]any{"path": "README.md"}, []string{"# Title\nline two\nline three\n", "lines 1-3 of 3"}, [2]int{1, 3}, false},
		{"line range", map[string]any{"path": "README.md", "start_line": 2, "end_line": 2}, []string{"line two\n"}, [2]int{2, 2}, false},
		{"end past the end", map[string]any{"path": "README.md", "start_line": 3, "end_line": 99}, []string{"line three\n"}, [2]int{3, 3}, false},
		{"no final newline", map[string]any{"path": "no-newline.txt", "start_line": 2}, []string{"b\n````"}, [2]int{2, 2}, false},
		{"empty file", map[string]any{"path": "empty.txt"}, []string{"lines 1-0 of 0"}, [2]int{1, 0}, false},
		{"budget cuts between lines", map[string]any{"path": "README.md", "max_bytes": 12}, []string{"# Title\n", "continue with start_line 2"}, [2]int{1, 1}, true},
		{"fence outlasts the file's backticks", map[string]any{"path": "docs/ticks.md"}, []string{"`````\nrun ```` this\n`````"}, [2]int{1, 1}, false},
		{"dot segments", map[string]any{"path": "src/../README.md"}, []string{"# Title"}, [2]int{1, 3}, false},
		{"by short SHA", map[string]any{"path": "README.md", "revision": f.head[:8]}, []string{"# Title"}, [2]int{1, 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["workspace_id"] = "repo"
			res := f.call(t, "read_file", tt.args)
			if res.IsError {
				t.Fatalf("error: %s", res.Text)
			}
			for _, s := range tt.wantText {
				if !strings.Contains(res.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, res.Text)
				}
			}
			out := structured[readfile.ReadFileOut](t, res)
			if out.Revision != f.head || out.StartLine != tt.wantLines[0] || out.EndLine != tt.wantLines[1] || out.Truncated != tt.wantTrunc {
				t.Errorf("got revision %s lines %d-%d truncated %v; want %s %v %v", out.Revision, out.StartLine, out.EndLine, out.Truncated, f.head, tt.wantLines, tt.wantTrunc)
			}
			if out.BlobSHA == "" || strings.Contains(string(res.Structured), "Title") {
				t.Errorf("structured: want a blob SHA and no content: %s", res.Structured)
			}
		})
	}
}

func TestReadFileLongLine(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "read_file", map[string]any{"workspace_id": "repo", "path": "long.txt"})
	out := structured[readfile.ReadFileOut](t, res)
	if res.IsError || !out.Truncated || !out.LineCut || out.Bytes > 256<<10 || len(res.Text) > 300<<10 {
		t.Fatalf("a 10 MB line: error %v, truncated %v, cut %v, %d bytes, text %d bytes", res.IsError, out.Truncated, out.LineCut, out.Bytes, len(res.Text))
	}
	if !strings.HasSuffix(strings.TrimSuffix(res.Text[:strings.LastIndex(res.Text, "\n```")], "\n"), "é") {
		t.Errorf("the cut is not on a character boundary")
	}
}

func TestReadFileBinaryAndLinks(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "read_file", map[string]any{"workspace_id": "repo", "path": "bin.dat"})
	if res.ErrorClass() != "invalid_input" || !strings.Contains(res.Text, "binary") || !strings.Contains(res.Text, "base64") {
		t.Errorf("binary as text: %s", res.Text)
	}
	res = f.call(t, "read_file", map[string]any{"workspace_id": "repo", "path": "latin1.txt"})
	if res.ErrorClass() != "invalid_input" {
		t.Errorf("invalid UTF-8 as text: %s", res.Text)
	}
	res = f.call(t, "read_file", map[string]any{"workspace_id": "repo", "path": "bin.dat", "encoding": "base64", "max_bytes": 8})
	out := structured[readfile.ReadFileOut](t, res)
	if res.IsError || !strings.Contains(res.Text, "AAECYmlu") || !out.Truncated || out.NextOffset != 6 {
		t.Errorf("base64: %s %s", res.Text, res.Structured)
	}
	res = f.call(t, "read_file", map[string]any{"workspace_id": "repo", "path": "bin.dat", "encoding": "base64", "offset": 6})
	if !strings.Contains(res.Text, "YXJ5") {
		t.Errorf("base64 from offset 6: %s", res.Text)
	}
	res = f.call(t, "read_file", map[string]any{"workspace_id": "repo", "path": "link"})
	link := structured[readfile.ReadFileOut](t, res)
	if res.IsError || link.Type != "symlink" || link.LinkPath != "src/main.go" || strings.Contains(res.Text, "package main") {
		t.Errorf("in-tree link: %s %s", res.Text, res.Structured)
	}
	for _, p := range []string{"escape", "absolute"} {
		res = f.call(t, "read_file", map[string]any{"workspace_id": "repo", "path": p})
		link = structured[readfile.ReadFileOut](t, res)
		if res.IsError || link.LinkPath != "" || !strings.Contains(res.Text, "not followed") {
			t.Errorf("%s: %s %s", p, res.Text, res.Structured)
		}
	}
}

// TestHostileInput sends what an attacker would, to every read tool, and
// checks the class of each refusal; call checks nothing leaks.
func TestHostileInput(t *testing.T) {
	f := newFixture(t)
	huge := strings.Repeat("a/", 10000) + "b"
	tests := []struct {
		name  string
		args  map[string]any
		class string
	}{
		{"absolute", map[string]any{"path": "/etc/passwd"}, "invalid_input"},
		{"double slash", map[string]any{"path": "//etc/passwd"}, "invalid_input"},
		{"drive", map[string]any{"path": `C:\Windows`}, "invalid_input"},
		{"drive relative", map[string]any{"path": "C:x"}, "invalid_input"},
		{"UNC", map[string]any{"path": `\\server\share`}, "invalid_input"},
		{"file URL", map[string]any{"path": "file:///etc/passwd"}, "invalid_input"},
		{"backslash", map[string]any{"path": `src\main.go`}, "invalid_input"},
		{"NUL", map[string]any{"path": "README.md\x00.txt"}, "invalid_input"},
		{"control", map[string]any{"path": "READ\x1bME.md"}, "invalid_input"},
		{"percent traversal", map[string]any{"path": "%2e%2e/%2e%2e/etc/passwd"}, "invalid_input"},
		{"escape", map[string]any{"path": "../../etc/passwd"}, "invalid_input"},
		{"prefix sibling", map[string]any{"path": "../repo-evil/secret.txt"}, "invalid_input"},
		{".git", map[string]any{"path": ".git/config"}, "invalid_input"},
		{".GIT", map[string]any{"path": "src/.GIT/config"}, "invalid_input"},
		{"fullwidth .git", map[string]any{"path": "．git/config"}, "invalid_input"},
		{"10000 components", map[string]any{"path": huge}, "invalid_input"},
		{"secret .env", map[string]any{"path": ".env"}, "permission_denied"},
		{"secret key", map[string]any{"path": "keys/id_rsa"}, "permission_denied"},
		{"directory", map[string]any{"path": "src"}, "invalid_input"},
		{"submodule", map[string]any{"path": "sub"}, "invalid_input"},
		{"missing", map[string]any{"path": "nope.txt"}, "not_found"},
		{"option revision", map[string]any{"path": "README.md", "revision": "--output=x"}, "invalid_input"},
		{"reflog revision", map[string]any{"path": "README.md", "revision": "main@{1}"}, "invalid_input"},
		{"regex revision", map[string]any{"path": "README.md", "revision": ":/first"}, "invalid_input"},
		{"rev:path", map[string]any{"path": "README.md", "revision": "HEAD:README.md"}, "invalid_input"},
		{"unknown revision", map[string]any{"path": "README.md", "revision": "no-such-branch"}, "not_found"},
		{"worktree not allowed", map[string]any{"path": "README.md", "revision": "worktree"}, "permission_denied"},
		{"unknown workspace", map[string]any{"path": "README.md", "workspace_id": "other"}, "not_found"},
		{"bad workspace id", map[string]any{"path": "README.md", "workspace_id": "../repo"}, "invalid_input"},
		{"2^63 start line", map[string]any{"path": "README.md", "start_line": uint64(math.MaxInt64) + 1}, "invalid_input"},
		{"end before start", map[string]any{"path": "README.md", "start_line": 3, "end_line": 2}, "invalid_input"},
		{"start past the end", map[string]any{"path": "README.md", "start_line": 4}, "invalid_input"},
		{"zero line", map[string]any{"path": "README.md", "start_line": 0}, "invalid_input"},
		{"case variant key", map[string]any{"Path": "README.md"}, "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := tt.args["workspace_id"]; !ok {
				tt.args["workspace_id"] = "repo"
			}
			for _, tool := range []string{"read_file", "list_files"} {
				args := tt.args
				if tool == "list_files" {
					if _, lines := args["start_line"]; lines || args["path"] == "src" || args["path"] == "sub" || args["path"] == "README.md" {
						continue // not a listing question
					}
				}
				res := f.call(t, tool, args)
				if got := res.ErrorClass(); got != tt.class {
					t.Errorf("%s: class %q, want %q: %s", tool, got, tt.class, res.Text)
				}
			}
		})
	}
	res := f.call(t, "read_file", json.RawMessage(`{"workspace_id":"repo","path":"README.md","path":"../../etc/passwd"}`))
	if res.ErrorClass() != "invalid_input" || !strings.Contains(res.Text, "duplicate key") {
		t.Errorf("duplicate keys: %s", res.Text)
	}
	if strings.Contains(f.audit.String(), f.root) {
		t.Errorf("the audit log holds the root path")
	}
}

func TestListFiles(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "list_files", map[string]any{"workspace_id": "repo"})
	out := structured[readfile.ListFilesOut](t, res)
	var names []string
	for _, e := range out.Entries {
		names = append(names, e.Path+":"+e.Type)
	}
	want := "README.md:file absolute:symlink bin.dat:file docs:dir empty.txt:file escape:symlink keys:dir latin1.txt:file link:symlink long.txt:file no-newline.txt:file src:dir sub:submodule"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("root listing:\n got %s\nwant %s", got, want)
	}
	if out.Omitted != 1 || out.Total != 13 || out.Revision != f.head {
		t.Errorf("omitted %d (want 1: .env), total %d, revision %s", out.Omitted, out.Total, out.Revision)
	}
	res = f.call(t, "list_files", map[string]any{"workspace_id": "repo", "recursive": true, "pattern": "**/*.go"})
	out = structured[readfile.ListFilesOut](t, res)
	if len(out.Entries) != 2 || out.Entries[0].Path != "src/main.go" || out.Entries[1].Path != "src/util/util.go" || out.Entries[0].Mode != "100644" {
		t.Errorf("**/*.go: %s", res.Structured)
	}
}

func TestListFilesPaging(t *testing.T) {
	f := newFixture(t)
	args := map[string]any{"workspace_id": "repo", "recursive": true, "limit": 5}
	var all []string
	for page := 0; ; page++ {
		out := structured[readfile.ListFilesOut](t, f.call(t, "list_files", args))
		for _, e := range out.Entries {
			all = append(all, e.Path)
		}
		if !out.Truncated {
			break
		}
		if page > 10 {
			t.Fatal("paging does not end")
		}
		args["cursor"] = out.NextCursor
	}
	full := structured[readfile.ListFilesOut](t, f.call(t, "list_files", map[string]any{"workspace_id": "repo", "recursive": true}))
	if len(all) != full.Total || len(all) != len(full.Entries) {
		t.Errorf("pages hold %d entries, one listing %d (total %d)", len(all), len(full.Entries), full.Total)
	}

	first := structured[readfile.ListFilesOut](t, f.call(t, "list_files", map[string]any{"workspace_id": "repo", "limit": 2}))
	tampered := f.call(t, "list_files", map[string]any{"workspace_id": "repo", "limit": 2, "cursor": first.NextCursor[:len(first.NextCursor)-3] + "xyz"})
	if tampered.ErrorClass() != "invalid_input" {
		t.Errorf("tampered cursor: %s", tampered.Text)
	}
	other := f.call(t, "list_files", map[string]any{"workspace_id": "repo", "limit": 2, "cursor": first.NextCursor, "recursive": true})
	if other.ErrorClass() != "invalid_input" {
		t.Errorf("cursor with other arguments: %s", other.Text)
	}
	f.repo.Commit(t, "second", map[string]gitfixture.File{"README.md": gitfixture.Text("moved\n")})
	moved := f.call(t, "list_files", map[string]any{"workspace_id": "repo", "limit": 2, "cursor": first.NextCursor})
	if moved.ErrorClass() != "precondition_failed" || !strings.Contains(moved.Text, f.head) {
		t.Errorf("cursor after HEAD moved: %s", moved.Text)
	}
}

// TestListFilesSizes pages through the whole listing with sizes asked for
// or not, page by page: an entry has a size, in structured content and in
// text, exactly when its page asked, and the sizes are git's.
func TestListFilesSizes(t *testing.T) {
	f := newFixture(t)
	gitSizes := lsTreeSizes(t, f.root)
	tests := []struct {
		name        string
		first, rest any // the sizes argument of the first page and of the others; nil leaves it out
	}{
		{"default", nil, nil},
		{"not asked", false, false},
		{"asked", true, true},
		{"asked from the second page", nil, true},
		{"asked on the first page only", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"workspace_id": "repo", "recursive": true, "limit": 4}
			asked := tt.first
			for page := 0; ; page++ {
				if asked != nil {
					args["sizes"] = asked
				}
				res := f.call(t, "list_files", args)
				if res.ErrorClass() != "" {
					t.Fatalf("page %d: %s", page, res.Text)
				}
				checkSizes(t, res, asked == true, gitSizes)
				out := structured[readfile.ListFilesOut](t, res)
				if !out.Truncated {
					if page == 0 {
						t.Fatalf("one page of %d entries: the test wants several", len(out.Entries))
					}
					break
				}
				args["cursor"], asked = out.NextCursor, tt.rest
			}
		})
	}
}

// checkSizes checks every entry of a list_files page: with sizes asked,
// files and symlinks have git's size and the others 0, and text shows a
// file's size after a tab; without, no entry has a size member and a
// file's text line is its path alone.
func checkSizes(t *testing.T, res *servertest.Result, asked bool, gitSizes map[string]int64) {
	t.Helper()
	var raw struct {
		Entries []map[string]json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(res.Structured, &raw); err != nil {
		t.Fatal(err)
	}
	for i, e := range structured[readfile.ListFilesOut](t, res).Entries {
		member, hasMember := raw.Entries[i]["size"]
		line := e.Path
		switch {
		case !asked && (e.Size != nil || hasMember):
			t.Errorf("%s: size %s given, not asked for", e.Path, member)
		case asked && e.Size == nil:
			t.Errorf("%s: no size, asked for", e.Path)
		case asked && *e.Size != gitSizes[e.Path]:
			t.Errorf("%s: size %d, git says %d", e.Path, *e.Size, gitSizes[e.Path])
		case asked && e.Type == "file":
			line += "\t" + strconv.FormatInt(*e.Size, 10)
		}
		if e.Type == "file" && !strings.Contains(res.Text, "\n"+line+"\n") {
			t.Errorf("text has no line %q:\n%s", line, res.Text)
		}
	}
}

// lsTreeSizes returns the size of every blob of HEAD in dir by path, as
// git ls-tree -r -l gives it.
func lsTreeSizes(t *testing.T, dir string) map[string]int64 {
	sizes := make(map[string]int64)
	for rec := range strings.SplitSeq(strings.TrimSuffix(gitfixture.Git(t, dir, "ls-tree", "-r", "-l", "-z", "HEAD"), "\x00"), "\x00") {
		meta, path, _ := strings.Cut(rec, "\t")
		fields := strings.Fields(meta) // mode, type, object, size
		if len(fields) != 4 || fields[1] != "blob" {
			continue
		}
		size, err := strconv.ParseInt(fields[3], 10, 64)
		if err != nil {
			t.Fatalf("git ls-tree: %q: %v", rec, err)
		}
		sizes[path] = size
	}
	return sizes
}
