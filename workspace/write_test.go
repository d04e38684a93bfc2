package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

func TestWriteTreeAndDiff(t *testing.T) {
	repo, commits := basicRepo(t)
	reg := openOne(t, repo.Dir, nil)
	s, err := reg.Snapshot(context.Background(), Access{Identity: "local", Action: ActionPropose}, "ws", commits[1])
	if err != nil {
		t.Fatal(err)
	}
	ws := s.Workspace()
	blob, err := ws.WriteBlob([]byte("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := s.WriteTree([]Change{
		{Path: "a/b/y.go", Delete: true}, // a/b becomes empty and goes
		{Path: "new/deep/f.txt", Mode: ModeFile, SHA: blob},
		{Path: "README.md", Mode: ModeExecutable, SHA: blob},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := gitfixture.Git(t, repo.Dir, "ls-tree", "-r", "--name-only", tree)
	if strings.Contains(got, "a/b/") || !strings.Contains(got, "new/deep/f.txt") || !strings.Contains(got, "a/x.go") {
		t.Errorf("tree:\n%s", got)
	}
	gitfixture.Git(t, repo.Dir, "fsck", "--strict", "--no-dangling") // every object git would write
	c, err := ws.WriteCommit(CommitObject{Tree: tree, Parents: []string{commits[1]}, Author: "a", Email: "a@a", Message: "m\n"})
	if err != nil {
		t.Fatal(err)
	}
	changes, err := ws.DiffCommits(commits[1], c)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, ch := range changes {
		paths = append(paths, ch.Path)
	}
	if d := diffStrings([]string{"README.md", "a/b/y.go", "new/deep/f.txt"}, paths); d != "" {
		t.Error(d)
	}

	for _, tc := range []struct {
		c    Change
		want errclass.Class
	}{
		{Change{Path: "docs/link", Mode: ModeFile, SHA: blob}, errclass.InvalidInput},   // a symlink
		{Change{Path: "docs/link/x", Mode: ModeFile, SHA: blob}, errclass.InvalidInput}, // through a symlink
		{Change{Path: "vendor/mod", Delete: true}, errclass.InvalidInput},               // a submodule
		{Change{Path: "a", Mode: ModeFile, SHA: blob}, errclass.InvalidInput},           // a directory
		{Change{Path: "readme.md", Mode: ModeFile, SHA: blob}, errclass.InvalidInput},   // case collision
		{Change{Path: ".env", Mode: ModeFile, SHA: blob}, errclass.PermissionDenied},    // a secret
		{Change{Path: ".git/config", Mode: ModeFile, SHA: blob}, errclass.InvalidInput}, // metadata
		{Change{Path: "x", Mode: ModeSymlink, SHA: blob}, errclass.InvalidInput},        // a symlink mode
		{Change{Path: "missing", Delete: true}, errclass.InvalidInput},                  // nothing to delete
	} {
		_, err := s.WriteTree([]Change{tc.c})
		wantClass(t, err, tc.want, repo.Dir)
	}
}

func TestUpdateRef(t *testing.T) {
	repo, commits := basicRepo(t)
	reg := openOne(t, repo.Dir, nil)
	ws, err := reg.Workspace(Access{Identity: "local", Action: ActionApply}, "ws")
	if err != nil {
		t.Fatal(err)
	}
	const ref = "refs/heads/feature/x"
	if err := ws.updateRef(ref, commits[0], ""); err != nil {
		t.Fatal(err)
	}
	var conflict *RefConflict
	if err := ws.updateRef(ref, commits[1], ""); !errors.As(err, &conflict) || conflict.Current != commits[0] {
		t.Errorf("create over an existing ref: %v", err)
	}
	if err := ws.updateRef(ref, commits[1], commits[0]); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitfixture.Git(t, repo.Dir, "rev-parse", ref)); got != commits[1] {
		t.Errorf("ref at %s", got)
	}
	// A packed ref is read and replaced like a loose one.
	gitfixture.Git(t, repo.Dir, "pack-refs", "--all")
	if err := ws.updateRef(ref, commits[0], commits[1]); err != nil {
		t.Fatal(err)
	}
	// git's own lock file holds us off.
	lock := filepath.Join(repo.Dir, ".git", "refs", "heads", "dev.lock")
	os.WriteFile(lock, nil, 0o644)
	if err := ws.updateRef("refs/heads/dev", commits[1], commits[0]); !errors.Is(err, ErrRefLocked) {
		t.Errorf("with git's lock held: %v", err)
	}
	os.Remove(lock)
	for _, bad := range []string{"HEAD", "refs/heads/a..b", "refs/heads/-x", "refs/heads/x.lock", "refs/heads/a b", "refs/../config", "refs/heads/x/", "heads/x"} {
		wantClass(t, ws.updateRef(bad, commits[0], ""), errclass.InvalidInput)
	}
}

func TestExport(t *testing.T) {
	repo, commits := basicRepo(t)
	reg := openOne(t, repo.Dir, func(c *Config) {
		c.Policies = []PolicyConfig{{Identity: "local", Workspaces: []string{"*"}, Actions: []Action{ActionVerify}, Deny: []string{"a/b/**"}}}
	})
	s, err := reg.Snapshot(context.Background(), Access{Identity: "local", Action: ActionVerify}, "ws", commits[1])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stats, err := s.Export(context.Background(), dir, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Links != 3 || stats.Submodules != 1 || stats.Omitted != 3 { // .env, prod.pem, a/b
		t.Errorf("stats %+v", stats)
	}
	for p, want := range map[string]bool{"README.md": true, "a/x.go": true, "bin/run": true, ".env": false, "a/b/y.go": false, "docs/link": false, ".git": false} {
		_, err := os.Lstat(filepath.Join(dir, p))
		if (err == nil) != want {
			t.Errorf("%s exported: %v, want %v", p, err == nil, want)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "bin/run")); fi == nil || fi.Mode()&0o111 == 0 {
		t.Errorf("bin/run lost its executable bit")
	}
}

// TestExportFixtures: the secret fixtures are exported only when asked for
// (verify_patch's tests need them; go_navigate shows its export's lines),
// and the two exports have different keys.
func TestExportFixtures(t *testing.T) {
	repo := gitfixture.New(t)
	head := repo.Commit(t, "fixtures", map[string]gitfixture.File{
		"go.mod":             gitfixture.Text("module m\n"),
		"a/testdata/key.pem": gitfixture.Text("SECRET\n"),
		"a/testdata/ok.txt":  gitfixture.Text("fine\n"),
	})
	s := snapshot(t, openOne(t, repo.Dir, nil), head)
	for _, tt := range []struct {
		opts ExportOptions
		want []string
	}{
		{ExportOptions{}, nil},
		{ExportOptions{SecretFixtures: true}, []string{"a/testdata/key.pem"}},
	} {
		dir := t.TempDir()
		stats, err := s.Export(t.Context(), dir, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(dir, "a/testdata/key.pem"))
		if !slices.Equal(stats.Fixtures, tt.want) || (statErr == nil) != (tt.want != nil) {
			t.Errorf("Export(%+v): fixtures %q, key.pem exported: %v; want %q", tt.opts, stats.Fixtures, statErr == nil, tt.want)
		}
	}
	plain, _ := s.ExportKey(ExportOptions{})
	withFixtures, _ := s.ExportKey(ExportOptions{SecretFixtures: true})
	if plain == withFixtures {
		t.Errorf("ExportKey is %s with and without fixtures", plain)
	}
}

// TestExportKeyFollowsConfiguration: an export kept on disk is reused only
// by a configuration that would write the same files: a new secret
// pattern, fixture or path policy (after a restart, or on a replica
// sharing the cache) changes the key; the caller's name alone does not.
func TestExportKeyFollowsConfiguration(t *testing.T) {
	repo, commits := basicRepo(t)
	policy := func(identity string, deny ...string) PolicyConfig {
		return PolicyConfig{Identity: identity, Workspaces: []string{"*"}, Actions: []Action{ActionSearch}, Deny: deny}
	}
	key := func(identity string, edit func(*Config)) string {
		t.Helper()
		reg := openOne(t, repo.Dir, edit)
		s, err := reg.Snapshot(t.Context(), Access{Identity: identity, Action: ActionSearch}, "ws", commits[1])
		if err != nil {
			t.Fatal(err)
		}
		k, ok := s.ExportKey(ExportOptions{})
		if !ok {
			t.Fatal("ExportKey of a commit: not ok")
		}
		return k
	}
	base := key("local", nil)
	if again := key("local", nil); again != base {
		t.Errorf("the same configuration gives keys %s and %s", base, again)
	}
	for name, tt := range map[string]struct {
		identity string
		edit     func(*Config)
		same     bool
	}{
		"workspace deny": {"local", func(c *Config) { c.Workspaces[0].Deny = []string{"docs/**"} }, false},
		"fixtures":       {"local", func(c *Config) { c.Workspaces[0].VerifySecretFixtures = []string{"a/**"} }, true}, // not exported here
		"policy deny": {"alice", func(c *Config) {
			c.Policies = []PolicyConfig{policy("alice", "a/b/**")}
		}, false},
		"policy deny changed": {"alice", func(c *Config) {
			c.Policies = []PolicyConfig{policy("alice", "a/**")}
		}, false},
		"another name, same rules": {"bob", func(c *Config) {
			c.Policies = []PolicyConfig{policy("bob")}
		}, true},
	} {
		if got := key(tt.identity, tt.edit); (got == base) != tt.same {
			t.Errorf("%s: key equal to the base: %v, want %v", name, got == base, tt.same)
		}
	}
	a := key("alice", func(c *Config) { c.Policies = []PolicyConfig{policy("alice", "a/b/**")} })
	b := key("alice", func(c *Config) { c.Policies = []PolicyConfig{policy("alice", "a/**")} })
	if a == b {
		t.Errorf("two different deny lists share the key %s", a)
	}
}

// TestApplyWorktreeRollback stops an apply midway (as a crash would) and
// recovers it: the files go back to their base content, a file someone
// changed meanwhile is kept and reported. With core.autocrlf, git checks
// the files out with CRLF: the apply writes them so, and the recovery
// tells its own writes from a person's and restores the CRLF form.
func TestApplyWorktreeRollback(t *testing.T) {
	for _, crlf := range []bool{false, true} {
		t.Run(fmt.Sprintf("crlf=%v", crlf), func(t *testing.T) { testApplyWorktreeRollback(t, crlf) })
	}
}

func testApplyWorktreeRollback(t *testing.T, crlf bool) {
	repo, commits := basicRepo(t)
	eol := "\n"
	if crlf {
		gitfixture.Git(t, repo.Dir, "config", "core.autocrlf", "true")
		eol = "\r\n"
	}
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard", commits[1])
	if data, _ := os.ReadFile(filepath.Join(repo.Dir, "README.md")); string(data) != "hello again"+eol {
		t.Fatalf("git checked README.md out as %q", data)
	}
	reg := openOne(t, repo.Dir, func(c *Config) { c.Workspaces[0].Worktree = true })
	s, err := reg.Snapshot(context.Background(), Access{Identity: "local", Action: ActionApply}, "ws", commits[1])
	if err != nil {
		t.Fatal(err)
	}
	ws := s.Workspace()
	newBlob, _ := ws.WriteBlob([]byte("patched\n"))
	readme, _ := s.Stat(context.Background(), "README.md")
	ac, _ := s.Stat(context.Background(), "a.c")
	files := []WorktreeFile{
		{Path: "README.md", BaseSHA: readme.SHA, BaseMode: ModeFile, NewSHA: newBlob, NewMode: ModeFile},
		{Path: "a.c", BaseSHA: ac.SHA, BaseMode: ModeFile, NewSHA: newBlob, NewMode: ModeFile},
		{Path: "n/new.txt", NewSHA: newBlob, NewMode: ModeFile},
	}
	stop := errors.New("crash")
	func() {
		defer func() {
			if r := recover(); r != stop {
				panic(r)
			}
		}()
		s.ApplyWorktree(context.Background(), WorktreeApply{ID: "p1", Base: commits[1], Files: files, AfterFile: func(i int) {
			if i == 0 {
				if data, _ := os.ReadFile(filepath.Join(repo.Dir, "README.md")); string(data) != "patched"+eol {
					t.Errorf("the apply wrote README.md as %q", data)
				}
			}
			if i == 1 {
				panic(stop) // README.md and a.c are in place, n/new.txt is staged
			}
		}})
	}()
	os.WriteFile(filepath.Join(repo.Dir, "a.c"), []byte("changed by a person\n"), 0o644)
	rec, err := ws.recoverWorktree()
	if err != nil || rec == nil {
		t.Fatalf("recover: %v %v", rec, err)
	}
	if d := diffStrings([]string{"README.md"}, rec.Restored); d != "" {
		t.Errorf("restored: %s", d)
	}
	if d := diffStrings([]string{"a.c"}, rec.Kept); d != "" {
		t.Errorf("kept: %s", d)
	}
	if data, _ := os.ReadFile(filepath.Join(repo.Dir, "README.md")); string(data) != "hello again"+eol {
		t.Errorf("README.md: %q", data)
	}
	if _, err := os.Stat(filepath.Join(repo.Dir, "n")); err == nil {
		t.Errorf("the directory the apply created is still there")
	}
	if rec, err := ws.recoverWorktree(); rec != nil || err != nil {
		t.Errorf("a second recovery: %v %v", rec, err)
	}
}

// TestApplyWorktreeEditDuringApply changes a file between the apply's
// check and its rename: the apply stops, rolls back what it had put in
// place, and leaves the person's edit alone.
func TestApplyWorktreeEditDuringApply(t *testing.T) {
	repo, commits := basicRepo(t)
	gitfixture.Git(t, repo.Dir, "reset", "-q", "--hard", commits[1])
	reg := openOne(t, repo.Dir, func(c *Config) { c.Workspaces[0].Worktree = true })
	s, err := reg.Snapshot(context.Background(), Access{Identity: "local", Action: ActionApply}, "ws", commits[1])
	if err != nil {
		t.Fatal(err)
	}
	newBlob, _ := s.Workspace().WriteBlob([]byte("patched\n"))
	readme, _ := s.Stat(context.Background(), "README.md")
	ac, _ := s.Stat(context.Background(), "a.c")
	err = s.ApplyWorktree(context.Background(), WorktreeApply{ID: "p2", Base: commits[1], Files: []WorktreeFile{
		{Path: "README.md", BaseSHA: readme.SHA, BaseMode: ModeFile, NewSHA: newBlob, NewMode: ModeFile},
		{Path: "a.c", BaseSHA: ac.SHA, BaseMode: ModeFile, NewSHA: newBlob, NewMode: ModeFile},
	}, AfterFile: func(i int) {
		if i == 0 {
			os.WriteFile(filepath.Join(repo.Dir, "a.c"), []byte("a person's edit\n"), 0o644)
		}
	}})
	wantClass(t, err, errclass.PreconditionFailed, repo.Dir)
	if data, _ := os.ReadFile(filepath.Join(repo.Dir, "README.md")); string(data) != "hello again\n" {
		t.Errorf("README.md not rolled back: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(repo.Dir, "a.c")); string(data) != "a person's edit\n" {
		t.Errorf("a.c: %q", data)
	}
	if _, err := os.Stat(filepath.Join(repo.Dir, ".git", journalName)); err == nil {
		t.Errorf("the journal is left behind")
	}
	if out := gitfixture.Git(t, repo.Dir, "status", "--porcelain"); strings.TrimSpace(out) != "M a.c" {
		t.Errorf("status:\n%s", out)
	}
}

// TestExportSkip: a skipped directory is not written, nor anything below
// it; another export into the same directory writes it later, skipping
// what is there; the rule changes the key.
func TestExportSkip(t *testing.T) {
	repo := gitfixture.New(t)
	head := repo.Commit(t, "skip", map[string]gitfixture.File{
		"go.mod":                gitfixture.Text("module m\n"),
		"a/a.go":                gitfixture.Text("package a\n"),
		"a/testdata/in.txt":     gitfixture.Text("input\n"),
		"a/testdata/deep/x.txt": gitfixture.Text("x\n"),
		"b/testdata/other.txt":  gitfixture.Text("other\n"),
		"testdatanot/kept.go":   gitfixture.Text("package testdatanot\n"),
	})
	s := snapshot(t, openOne(t, repo.Dir, nil), head)
	isTestdata := func(p string, isDir bool) bool { return isDir && path.Base(p) == "testdata" }
	dir := t.TempDir()
	var exported []string
	stats, err := s.Export(t.Context(), dir, ExportOptions{Skip: isTestdata, SkipRule: "testdata", Exported: func(f ExportedFile) { exported = append(exported, f.Path) }})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Skipped != 2 || stats.Files != 3 {
		t.Errorf("stats %+v, want 2 skipped and 3 files", stats)
	}
	if want := []string{"a/a.go", "go.mod", "testdatanot/kept.go"}; !slices.Equal(exported, want) {
		t.Errorf("exported %q, want %q", exported, want)
	}
	for p, want := range map[string]bool{"a/a.go": true, "a/testdata": false, "b/testdata": false, "testdatanot/kept.go": true} {
		if _, err := os.Lstat(filepath.Join(dir, p)); (err == nil) != want {
			t.Errorf("%s exported: %v, want %v", p, err == nil, want)
		}
	}

	// The rest of a/testdata, into the same directory: a's own file is
	// there already and skipped.
	os.WriteFile(filepath.Join(dir, "a/a.go"), []byte("kept as it was\n"), 0o644)
	inA := func(p string, isDir bool) bool {
		return !(p == "a" || p == "a/testdata" || strings.HasPrefix(p, "a/testdata/"))
	}
	stats, err = s.Export(t.Context(), dir, ExportOptions{Skip: inA})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Files != 2 {
		t.Errorf("second export: stats %+v, want 2 files", stats)
	}
	for p, want := range map[string]string{"a/testdata/in.txt": "input\n", "a/testdata/deep/x.txt": "x\n", "a/a.go": "kept as it was\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, p)); string(got) != want {
			t.Errorf("%s: %q, %v; want %q", p, got, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "b/testdata")); err == nil {
		t.Errorf("b/testdata exported by the second export")
	}

	all, _ := s.ExportKey(ExportOptions{})
	skipping, _ := s.ExportKey(ExportOptions{Skip: isTestdata, SkipRule: "testdata"})
	other, _ := s.ExportKey(ExportOptions{Skip: isTestdata, SkipRule: "testdata and more"})
	if all == skipping || skipping == other {
		t.Errorf("ExportKey: %s without a skip rule, %s and %s with two", all, skipping, other)
	}
}
