package workspace

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestBranchRef checks every case against git check-ref-format --branch:
// BranchRef refuses what git refuses, and accepts what git accepts unless
// the case says why it refuses it anyway.
func TestBranchRef(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the cases are checked against git check-ref-format")
	}
	for _, tc := range []struct {
		name string
		want string // the full ref, or "" when refused
		// ours says why BranchRef refuses a name git accepts.
		ours string
	}{
		{name: "feature/x", want: "refs/heads/feature/x"},
		{name: "refs/heads/feature/x", want: "refs/heads/feature/x"},
		{name: "repo-mcp/0123456789ab", want: "refs/heads/repo-mcp/0123456789ab"},
		{name: "héllo", want: "refs/heads/héllo"},
		{name: "x/HEAD", want: "refs/heads/x/HEAD"},
		{name: "a.b", want: "refs/heads/a.b"},
		{name: "v1.2-rc", want: "refs/heads/v1.2-rc"},
		{name: "HEAD"},
		{name: "refs/heads/HEAD"},
		{name: "-x"},
		{name: "--force"},
		{name: "a..b"},
		{name: "a@{b"},
		{name: "a@{-1}"},
		{name: "a.lock"},
		{name: "a/b.lock/c"},
		{name: "a."},
		{name: ".a"},
		{name: "a/.b"},
		{name: "a b"},
		{name: "a\tb"},
		{name: "a\x7fb"},
		{name: "a\x01b"},
		{name: "a//b"},
		{name: "a/"},
		{name: "/a"},
		{name: "a\\b"},
		{name: "a~1"},
		{name: "a^"},
		{name: "a:b"},
		{name: "a?"},
		{name: "a*"},
		{name: "a[b"},
		{name: ""},
		{name: "@", ours: "git reads @ as HEAD"},
		{name: "FETCH_HEAD", ours: "a pseudo-ref"},
		{name: "ORIG_HEAD", ours: "a pseudo-ref"},
		{name: "MERGE_HEAD", ours: "a pseudo-ref"},
		{name: "refs/tags/v1", ours: "not under refs/heads/"},
		{name: "refs/heads/refs/heads/x", ours: "not under refs/heads/"},
		{name: strings.Repeat("ab", 20), ours: "an object id"},
		{name: strings.Repeat("a", 300), ours: "longer than any revision"},
	} {
		got, err := BranchRef(tc.name)
		if (err == nil) != (tc.want != "") || got != tc.want {
			t.Errorf("BranchRef(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
		short := strings.TrimPrefix(tc.name, "refs/heads/")
		gitErr := exec.Command(gitPath, "check-ref-format", "--branch", short).Run()
		var exit *exec.ExitError
		if gitErr != nil && !errors.As(gitErr, &exit) {
			t.Fatalf("git check-ref-format: %v", gitErr)
		}
		gitAccepts := gitErr == nil
		switch {
		case !gitAccepts && err == nil:
			t.Errorf("BranchRef accepts %q, which git refuses", tc.name)
		case gitAccepts && err != nil && tc.ours == "":
			t.Errorf("BranchRef refuses %q, which git accepts, and the case does not say why: %v", tc.name, err)
		case !gitAccepts && tc.ours != "":
			t.Errorf("git refuses %q too: the case's reason %q is not needed", tc.name, tc.ours)
		}
	}
}
