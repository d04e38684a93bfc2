package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/errclass"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

func TestListRefs(t *testing.T) {
	repo, commits := basicRepo(t)
	blob := repo.Blob(t, "a record\n")
	repo.SetRef(t, "refs/repo-mcp/b", commits[1])
	repo.SetRef(t, "refs/repo-mcp/a/x", blob)
	repo.SetRef(t, "refs/repo-mcp/d", commits[1])
	gitfixture.Git(t, repo.Dir, "pack-refs", "--all") // packed ones are listed too
	repo.SetRef(t, "refs/repo-mcp/a/y", commits[0])
	repo.SetRef(t, "refs/repo-mcp/d", commits[0]) // a loose ref hides its packed value
	gitfixture.Git(t, repo.Dir, "symbolic-ref", "refs/repo-mcp/sym", "refs/heads/main")
	ws := writable(t, repo.Dir)

	tests := []struct {
		prefix string
		want   []string
	}{
		{"refs/repo-mcp/", []string{"refs/repo-mcp/a/x " + blob, "refs/repo-mcp/a/y " + commits[0], "refs/repo-mcp/b " + commits[1], "refs/repo-mcp/d " + commits[0]}},
		{"refs/repo-mcp/a/", []string{"refs/repo-mcp/a/x " + blob, "refs/repo-mcp/a/y " + commits[0]}},
		{"refs/repo-mcp/c", nil},
		{"refs/tags/v", []string{"refs/tags/v1 " + strings.TrimSpace(gitfixture.Git(t, repo.Dir, "rev-parse", "refs/tags/v1"))}}, // not peeled
	}
	for _, tt := range tests {
		refs, err := ws.listRefs(tt.prefix)
		if err != nil {
			t.Fatalf("%s: %v", tt.prefix, err)
		}
		var got []string
		for _, r := range refs {
			got = append(got, r.Name+" "+r.SHA)
		}
		if d := diffStrings(tt.want, got); d != "" {
			t.Errorf("%s: %s", tt.prefix, d)
		}
	}
	_, err := ws.listRefs("heads/")
	wantClass(t, err, errclass.InvalidInput)
}

func TestDeleteRef(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, repo *gitfixture.Repo, c []string) // the ref is at c[1] after it
	}{
		{"loose", func(t *testing.T, repo *gitfixture.Repo, c []string) {}},
		{"packed", func(t *testing.T, repo *gitfixture.Repo, c []string) {
			gitfixture.Git(t, repo.Dir, "pack-refs", "--all")
		}},
		{"packed at another value and loose", func(t *testing.T, repo *gitfixture.Repo, c []string) {
			repo.SetRef(t, "refs/repo-mcp/x/y", c[0])
			gitfixture.Git(t, repo.Dir, "pack-refs", "--all")
			repo.SetRef(t, "refs/repo-mcp/x/y", c[1])
		}},
	}
	const ref = "refs/repo-mcp/x/y"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, c := basicRepo(t)
			repo.SetRef(t, ref, c[1])
			tt.setup(t, repo, c)
			ws := writable(t, repo.Dir)
			before := gitfixture.Git(t, repo.Dir, "show-ref", "-d")

			var conflict *RefConflict
			if err := ws.deleteRef(ref, c[0]); !errors.As(err, &conflict) || conflict.Current != c[1] {
				t.Fatalf("delete at the wrong value: %v", err)
			}
			if err := ws.deleteRef(ref, c[1]); err != nil {
				t.Fatal(err)
			}
			if got, err := ws.readRef(ref); got != "" || err != nil {
				t.Errorf("the ref reads %q, %v after its deletion", got, err)
			}
			// git agrees, and every other ref (the peeled tag too) is as it was.
			want := strings.ReplaceAll(before, c[1]+" "+ref+"\n", "")
			if got := gitfixture.Git(t, repo.Dir, "show-ref", "-d"); got != want {
				t.Errorf("git show-ref -d:\n%s\nwant\n%s", got, want)
			}
			if err := ws.deleteRef(ref, c[1]); !errors.As(err, &conflict) || conflict.Current != "" {
				t.Errorf("delete of a deleted ref: %v", err)
			}
			gitfixture.Git(t, repo.Dir, "fsck", "--no-dangling")
		})
	}
}

func TestDeleteRefLocked(t *testing.T) {
	const ref = "refs/repo-mcp/x"
	for _, lock := range []string{ref + ".lock", "packed-refs.lock"} {
		t.Run(lock, func(t *testing.T) {
			repo, c := basicRepo(t)
			repo.SetRef(t, ref, c[1])
			ws := writable(t, repo.Dir)
			path := filepath.Join(repo.Dir, ".git", filepath.FromSlash(lock))
			os.WriteFile(path, nil, 0o644)
			if err := ws.deleteRef(ref, c[1]); !errors.Is(err, ErrRefLocked) {
				t.Errorf("with git's lock held: %v", err)
			}
			if got, _ := ws.readRef(ref); got != c[1] {
				t.Errorf("the ref is at %q", got)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the other writer's lock is gone: %v", err)
			}
		})
	}
}

func TestDeleteRefInput(t *testing.T) {
	repo, c := basicRepo(t)
	ws := writable(t, repo.Dir)
	for _, bad := range []string{"HEAD", "refs/heads/a..b", "refs/../config", "heads/x"} {
		wantClass(t, ws.deleteRef(bad, c[0]), errclass.InvalidInput)
	}
	wantClass(t, ws.deleteRef("refs/heads/dev", ""), errclass.InvalidInput)
}

// writable opens dir as the one workspace "ws" for writing.
func writable(t *testing.T, dir string) *Workspace {
	t.Helper()
	ws, err := openOne(t, dir, nil).Workspace(Access{Identity: "local", Action: ActionApply}, "ws")
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestWithoutPackedRef(t *testing.T) {
	const packed = "# pack-refs with: peeled fully-peeled sorted \n" +
		"1111 refs/heads/main\n" +
		"2222 refs/tags/v1\n" +
		"^3333\n" +
		"4444 refs/tags/v10\n"
	tests := []struct {
		name, want string
		found      bool
	}{
		{"refs/tags/v1", "# pack-refs with: peeled fully-peeled sorted \n1111 refs/heads/main\n4444 refs/tags/v10\n", true},
		{"refs/heads/main", "# pack-refs with: peeled fully-peeled sorted \n2222 refs/tags/v1\n^3333\n4444 refs/tags/v10\n", true},
		{"refs/tags/v10", "# pack-refs with: peeled fully-peeled sorted \n1111 refs/heads/main\n2222 refs/tags/v1\n^3333\n", true},
		{"refs/tags/v", packed, false},
		{"peeled", packed, false},
	}
	for _, tt := range tests {
		got, found := withoutPackedRef([]byte(packed), tt.name)
		if string(got) != tt.want || found != tt.found {
			t.Errorf("without %s: %v\n%s\nwant %v\n%s", tt.name, found, got, tt.found, tt.want)
		}
	}
}
