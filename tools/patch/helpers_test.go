package patch_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/testbin"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
	"github.com/repo-mcp/repo-mcp/tools/patch"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

var bins = testbin.New()

func TestMain(m *testing.M) {
	verify.RunHelper() // the verify sandbox re-executes this test binary
	code := bins.Run(m)
	if benchCorpus.temp != "" {
		os.RemoveAll(benchCorpus.temp)
	}
	os.Exit(code)
}

// baseFiles is the fixture repository's first commit.
var baseFiles = map[string]gitfixture.File{
	"go.mod":                   gitfixture.Text("module example.com/fx\n\ngo 1.22\n"),
	"main.go":                  gitfixture.Text("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greeting())\n}\n"),
	"greet.go":                 gitfixture.Text("package main\n\nfunc greeting() string {\n\treturn \"hello\"\n}\n"),
	"greet_test.go":            gitfixture.Text("package main\n\nimport \"testing\"\n\nfunc TestGreeting(t *testing.T) {\n\tif greeting() != \"hello\" {\n\t\tt.Fatal(greeting())\n\t}\n}\n"),
	"README.md":                gitfixture.Text("# fx\n\nx = 1\ny = 2\nx = 1\n"),
	"docs/a.txt":               gitfixture.Text("alpha\nbeta\ngamma\n"),
	".github/workflows/ci.yml": gitfixture.Text("on: push\n"),
	"link":                     gitfixture.Link("README.md"),
	"sub":                      gitfixture.Gitlink("0123456789abcdef0123456789abcdef01234567"),
	".env":                     gitfixture.Text("TOKEN=hunter2\n"),
	"bin.dat":                  gitfixture.Text("\x00\x01binary"),
}

// fixture is a repository served by the patch tools.
type fixture struct {
	dir    string
	head   string
	reg    *workspace.Registry
	client *servertest.Client
	log    *syncBuffer
}

type fixtureOptions struct {
	policies []workspace.PolicyConfig
	opts     patch.Options
	second   bool // a second workspace "other"
	client   servertest.Options
	readOnly bool
}

func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	os.Mkdir(dir, 0o755)
	repo := gitfixture.Init(t, dir, false)
	head := repo.Commit(t, "first", baseFiles)
	gitfixture.Git(t, dir, "reset", "-q", "--hard", "main") // the working tree holds the base
	cfg := workspace.Config{
		Workspaces: []workspace.WorkspaceConfig{{ID: "repo", Root: dir, Worktree: true, ReadOnly: fo.readOnly}},
		Policies:   fo.policies,
	}
	if fo.second {
		other := filepath.Join(t.TempDir(), "other")
		os.Mkdir(other, 0o755)
		r2 := gitfixture.Init(t, other, false)
		r2.Commit(t, "first", baseFiles)
		cfg.Workspaces = append(cfg.Workspaces, workspace.WorkspaceConfig{ID: "other", Root: other, Worktree: true})
	}
	reg, err := workspace.Open(cfg, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	f := &fixture{dir: dir, head: head, reg: reg, log: &syncBuffer{}}
	f.client = f.start(t, fo)
	return f
}

func (f *fixture) start(t *testing.T, fo fixtureOptions) *servertest.Client {
	s := server.New(server.Info{Name: "t"}, server.Options{
		Logger:    slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Audit:     io.Discard,
		Authorize: toolkit.Authorizer(f.reg),
	})
	opts := fo.opts
	opts.Logger = slog.New(slog.NewJSONHandler(f.log, nil))
	opts.Verify.SelfHelper = true
	if err := patch.Register(s, f.reg, opts); err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, s, fo.client)
}

// call calls a tool and checks that the host's paths and secrets never
// appear in the answer.
func (f *fixture) call(t *testing.T, tool string, args map[string]any) *servertest.Result {
	t.Helper()
	if _, ok := args["workspace_id"]; !ok {
		args["workspace_id"] = "repo"
	}
	res := f.client.Call(tool, args)
	meta, _ := json.Marshal(res.Meta)
	all := res.Text + string(res.Structured) + string(meta)
	for _, leak := range []string{f.dir, "hunter2"} {
		if strings.Contains(all, leak) {
			t.Fatalf("%s: the answer holds %q:\n%s", tool, leak, all)
		}
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result.
func ok[T any](t *testing.T, f *fixture, tool string, args map[string]any) T {
	t.Helper()
	res := f.call(t, tool, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, res.Text)
	}
	var v T
	if err := json.Unmarshal(res.Structured, &v); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, res.Structured)
	}
	return v
}

// fails calls a tool that must fail with class and returns the text.
func fails(t *testing.T, f *fixture, tool string, args map[string]any, class server.Class) string {
	t.Helper()
	res := f.call(t, tool, args)
	if !res.IsError || res.ErrorClass() != string(class) {
		t.Fatalf("%s %v: want %s, got error=%v class=%q: %s", tool, args, class, res.IsError, res.ErrorClass(), res.Text)
	}
	return res.Text
}

// state is what a test compares to prove that nothing was written: every
// ref but the patches' histories, and every file of the working tree.
func (f *fixture) state(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	// Every apply attempt is recorded in the patch's history, a failed one
	// in its caller's log of failures too, and an answer the person gave
	// in the patch's ledger of answers: those are the things a refused
	// apply writes (see TestPatchHistory, TestQuotas, TestAnswerOnce).
	for ref := range strings.Lines(gitfixture.Git(t, f.dir, "for-each-ref", "--format=%(refname) %(objectname)")) {
		if !strings.HasPrefix(ref, "refs/repo-mcp/history/") && !strings.HasPrefix(ref, "refs/repo-mcp/answers/") &&
			!strings.HasPrefix(ref, "refs/repo-mcp/failed/") {
			b.WriteString(ref)
		}
	}
	filepath.WalkDir(f.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(f.dir, p)
			b.WriteString(rel + "\x00" + string(data) + "\x00")
		}
		return nil
	})
	return b.String()
}

// history returns the subjects of a patch's history, newest first.
func (f *fixture) history(t *testing.T, id string) string {
	t.Helper()
	return gitfixture.Git(t, f.dir, "log", "--format=%s", "refs/repo-mcp/history/"+id)
}

func (f *fixture) read(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// generated is the structured result of generate_patch and preview_diff.
type generated struct {
	PatchID    string `json:"patch_id"`
	Base       string `json:"base"`
	Diff       string `json:"diff"`
	DiffSHA256 string `json:"diff_sha256"`
	Truncated  bool   `json:"truncated"`
	Files      []struct {
		Path, OldPath, Status string
		Additions, Deletions  int
	} `json:"files"`
	Applies        bool `json:"applies"`
	AlreadyApplied bool `json:"already_applied"`
	Conflicts      []workspace.Conflict
	Approval       struct {
		PatchID    string `json:"patch_id"`
		Base       string `json:"base"`
		DiffSHA256 string `json:"diff_sha256"`
	} `json:"approval"`
}

type applied struct {
	PatchID        string `json:"patch_id"`
	Target         string `json:"target"`
	Branch         string `json:"branch"`
	Commit         string `json:"commit"`
	RequestID      string `json:"apply_request_id"`
	Caller         string `json:"caller"`
	AlreadyApplied bool   `json:"already_applied"`
}

func edit(op, path string, kv ...string) map[string]any {
	m := map[string]any{"op": op, "path": path}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func generate(t *testing.T, f *fixture, edits ...map[string]any) generated {
	t.Helper()
	return ok[generated](t, f, "generate_patch", map[string]any{"edits": edits})
}
