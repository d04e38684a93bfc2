package readfile

import (
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
)

func TestFileURI(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, p := range []string{"README.md", "a b/c%d.txt", "dir/#frag?q=1", "ünï/cödé.go", "x/../y"} {
		uri := fileURI("fx", commit, p)
		id, c, got, err := parseFileURI(uri)
		if err != nil || id != "fx" || c != commit || got != p {
			t.Errorf("%q: %s parses as %q %q %q, %v", p, uri, id, c, got, err)
		}
	}
	if got, want := fileURI("fx", commit, "a b/c%d#e.txt"), "repo://fx/"+commit+"/a%20b/c%25d%23e.txt"; got != want {
		t.Errorf("fileURI = %s, want %s", got, want)
	}
	for _, uri := range []string{"", "file:///etc/passwd", "repo://fx/HEAD/README.md", "repo://fx/" + commit, "repo://fx/" + commit + "/", "repo:///" + commit + "/a", "repo://fx/" + commit + "/%zz"} {
		if _, _, _, err := parseFileURI(uri); err == nil {
			t.Errorf("%q parses", uri)
		}
	}
}

func TestLinks(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	cut := ReadFileOut{Revision: commit, Path: "docs/a.md", Type: "file", Size: 100, Truncated: true, workspace: "fx", maxResource: 1000}
	for _, tc := range []struct {
		name string
		out  func(ReadFileOut) ReadFileOut
		want int
	}{
		{"cut", func(o ReadFileOut) ReadFileOut { return o }, 1},
		{"whole", func(o ReadFileOut) ReadFileOut { o.Truncated = false; return o }, 0},
		{"working tree", func(o ReadFileOut) ReadFileOut { o.Revision = "worktree"; return o }, 0},
		{"symlink", func(o ReadFileOut) ReadFileOut { o.Type = "symlink"; return o }, 0},
		{"too large to serve", func(o ReadFileOut) ReadFileOut { o.Size = 1001; return o }, 0},
	} {
		links := tc.out(cut).Links()
		if len(links) != tc.want {
			t.Errorf("%s: links %+v", tc.name, links)
		}
		if len(links) == 1 && links[0] != (server.Link{URI: "repo://fx/" + commit + "/docs/a.md", Name: "a.md", Title: "docs/a.md at 0123456789ab",
			Description: "The whole file, of which this result shows a part.", Size: 100}) {
			t.Errorf("%s: link %+v", tc.name, links[0])
		}
	}
}
