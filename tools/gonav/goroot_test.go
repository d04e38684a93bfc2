package gonav

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// goRootQueries are asked of the miniature distribution in
// testdata/goroot.txtar: an internal package, a vendored module's
// package, interfaces satisfied across packages, calls through an
// interface.
var goRootQueries = []goplsQuery{
	{References, "io.Reader"},
	{References, "io.EOF"},
	{References, "errors.New"},
	{References, "bytealg.IndexByte"},
	{References, "width.Narrow"},
	{References, "strings.Reader.Read"},
	{Implementations, "io.Reader"},
	{Implementations, "io.Writer"},
	{Implementations, "bytes.Buffer"},
	{Implementations, "io.Reader.Read"},
	{Callers, "errors.New"},
	{Callers, "io.ReadAll"},
	{Callers, "bytealg.IndexByte"},
	{Callers, "bytes.Buffer.Write"},
	{Definition, "io.EOF"},
	{Definition, "width.Narrow"},
	{Definition, "strings.Reader"},
}

// stdQueries are the 30 questions asked on the Go standard library.
var stdQueries = []goplsQuery{
	{References, "strings.Builder"},
	{References, "bufio.NewScanner"},
	{References, "os.ErrNotExist"},
	{References, "time.Duration.Seconds"},
	{References, "sort.Slice"},
	{References, "errors.Join"},
	{References, "net/http.Request.Context"},
	{References, "io/fs.FS"},
	{References, "bytes.Buffer.WriteString"},
	{References, "unicode/utf8.RuneLen"},
	{Implementations, "io.Reader"},
	{Implementations, "io/fs.FS"},
	{Implementations, "sort.Interface"},
	{Implementations, "net.Conn"},
	{Implementations, "bytes.Buffer"},
	{Implementations, "strings.Reader"},
	{Implementations, "io.Writer.Write"},
	{Implementations, "context.Context"},
	{Callers, "errors.Join"},
	{Callers, "bufio.NewScanner"},
	{Callers, "sort.Slice"},
	{Callers, "os.ReadFile"},
	{Callers, "io.ReadAll"},
	{Callers, "unicode/utf8.RuneLen"},
	{Definition, "io.EOF"},
	{Definition, "strings.Builder"},
	{Definition, "fmt.Errorf"},
	{Definition, "os.ErrNotExist"},
	{Definition, "sync.Mutex"},
	{Definition, "net/http.Request"},
}

// TestGoRootLayouts serves a Go distribution's tree, as the golang/go
// repository lays it out and as its src directory committed alone: the
// standard library the results name is the revision's, never the
// server's Go's, every package type-checks (internal and vendored
// imports included), and gopls with GOROOT set to the same tree gives
// the same answers.
func TestGoRootLayouts(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/goroot.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		strip  string // the prefix the repository's paths drop
		prefix string // what results' paths start with
	}{
		{"golang-go", "", "src/"},
		{"src-only", "src/", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goRoot := filepath.Join(t.TempDir(), "goroot")
			dir := filepath.Join(goRoot, strings.TrimSuffix(tc.strip, "/"))
			for _, f := range ar.Files {
				name, ok := strings.CutPrefix(f.Name, tc.strip)
				if !ok {
					continue
				}
				writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), f.Data)
			}
			commitTree(t, dir)
			c, _ := serve(t, dir, testOptions(t))
			out := navigateAll(t, c, map[string]any{"relation": References, "symbol": "io.EOF"})
			if out.Precision.Mode != "typed" {
				t.Errorf("precision %+v, want typed", out.Precision)
			}
			if len(out.Results) == 0 {
				t.Fatal("no references of io.EOF")
			}
			for _, l := range out.Results {
				if !strings.HasPrefix(l.File, tc.prefix) || !inRepo(l.File) {
					t.Errorf("%s: not a file of the revision's standard library (want %q...)", locString(l), tc.prefix)
				}
			}
			lsp := startGopls(t, peers.Gopls(t), dir, filepath.Join(goRoot, "src"), goplsGoRootEnv(t, goRoot)...)
			compareWithGopls(t, c, lsp, roots{export: dir}, goRootQueries)
		})
	}
}

// TestAgainstGoplsStdlib asks the 30 standard-library questions of
// go_navigate and of gopls on GOROOT/src committed as a repository:
// minutes and gigabytes, so only when REPO_MCP_GONAV_STDLIB is set
// (bench/gonav.sh -std sets it).
func TestAgainstGoplsStdlib(t *testing.T) {
	if os.Getenv("REPO_MCP_GONAV_STDLIB") == "" {
		t.Skip("set REPO_MCP_GONAV_STDLIB=1 to compare with gopls on the Go standard library (minutes)")
	}
	gopls := peers.Gopls(t)
	goRoot := filepath.Join(t.TempDir(), "goroot")
	dir := filepath.Join(goRoot, "src")
	if err := os.MkdirAll(goRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	gitfixture.GoSource(t, dir)
	opts := testOptions(t)
	opts.CallTimeout = time.Hour // the first call loads the whole library, minutes on a busy machine
	c, _ := serve(t, dir, opts)
	lsp := startGopls(t, gopls, dir, dir, goplsGoRootEnv(t, goRoot)...)
	compareWithGopls(t, c, lsp, roots{export: dir}, stdQueries)
}

// goplsGoRootEnv has gopls read the distribution at goRoot as its
// GOROOT. gopls lists packages with -compiled, which wants the
// compiler: goRoot borrows the server's pkg directory (an untracked
// link, outside the revision). GOFLAGS is cleared: module std uses its
// vendor directory, which -mod=readonly would refuse.
func goplsGoRootEnv(t *testing.T, goRoot string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(strings.TrimSpace(string(out)), "pkg"), filepath.Join(goRoot, "pkg")); err != nil {
		t.Fatal(err)
	}
	return []string{"GOROOT=" + goRoot, "GOFLAGS="}
}

func writeFile(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitTree makes dir, which holds files, a repository with one commit
// of them.
func commitTree(t *testing.T, dir string) {
	t.Helper()
	gitfixture.Git(t, dir, "init", "-q", "-b", "main")
	gitfixture.Git(t, dir, "add", "-A")
	gitfixture.Git(t, dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "goroot")
}
