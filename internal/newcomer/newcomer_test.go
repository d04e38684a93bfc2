package newcomer

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/first-hour.txtar")

const transcript = "testdata/first-hour.txtar"

// step is one command of the transcript, run in the clone ("inside") or in
// an empty folder ("outside").
type step struct {
	where string
	args  []string
	// loose steps are checked against the patterns in their section (one
	// regular expression a line, each to be found in the output), which
	// -update leaves alone: their wording is another change's to settle.
	loose bool
}

// steps are README's commands in the order a newcomer meets them, then
// the mistakes a first hour makes.
var steps = []step{
	{where: "inside", args: []string{"go", "install", "./cmd/repo-mcp", "./cmd/repo-harness"}},
	{where: "inside", args: []string{"repo-harness", "demo"}},
	{where: "inside", args: []string{"repo-harness", "log", "$RUN"}},
	{where: "inside", args: []string{"repo-mcp", "schemas", "--check"}},
	{where: "inside", args: []string{"repo-mcp", "help"}},
	{where: "inside", args: []string{"repo-mcp", "serve"}},
	{where: "outside", args: []string{"repo-harness", "demo"}, loose: true},
	{where: "outside", args: []string{"repo-mcp", "schemas", "--check"}},
	{where: "outside", args: []string{"repo-mcp", "serve", "--workspace", "app=."}},
	{where: "outside", args: []string{"repo-mcp", "serve", "--workspace", "app=./no/such/repo"}},
}

// TestFirstHour runs the steps and compares what each printed, and its
// exit status, with the transcript. The clone is of HEAD: commit before
// running -update.
func TestFirstHour(t *testing.T) {
	if testing.Short() {
		t.Skip("clones the repository and builds its commands")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command: the newcomer's first step is a clone")
	}
	root := moduleRoot(t)
	work := t.TempDir()
	clone := filepath.Join(work, "repo-mcp")
	run(t, work, nil, "git", "clone", "-q", root, clone)
	outside := filepath.Join(work, "elsewhere")
	gobin := filepath.Join(work, "gobin")
	for _, d := range []string{outside, gobin, filepath.Join(work, "home")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A newcomer's environment: go install puts the commands in GOBIN,
	// which is on PATH; the demo keeps its runs in the state directory.
	// HOME moves too, so the go command's caches are named explicitly
	// (they would otherwise move with it and be fetched again).
	env := append(os.Environ(), "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+filepath.Join(work, "home"), "XDG_STATE_HOME="+filepath.Join(work, "state"), "GOFLAGS=", "GOWORK=off")
	for _, v := range []string{"GOMODCACHE", "GOCACHE", "GOPATH", "GOTOOLCHAIN"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	norm := normalizer(work, clone)

	ar, err := txtar.ParseFile(transcript)
	if err != nil && !*update {
		t.Fatal(err)
	}
	if ar == nil {
		ar = &txtar.Archive{}
	}
	want := make(map[string]string)
	for _, f := range ar.Files {
		want[f.Name] = string(f.Data)
	}
	var got []txtar.File
	runID := ""
	for _, s := range steps {
		args := append([]string(nil), s.args...)
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "$RUN", runID)
		}
		dir := clone
		if s.where == "outside" {
			dir = outside
		}
		bin := args[0]
		if installed := filepath.Join(gobin, bin); fileExists(installed) {
			bin = installed // as the shell finds it on the newcomer's PATH
		}
		out, code := run(t, dir, env, bin, args[1:]...)
		if id := runPattern.FindString(out); id != "" && runID == "" {
			runID = id
		}
		name := s.where + ": " + strings.Join(s.args, " ")
		text := norm(out) + fmt.Sprintf("[exit %d]\n", code)
		if s.loose {
			name += " (loose)"
			for _, p := range strings.Split(strings.TrimSpace(want[name]), "\n") {
				if p != "" && !regexp.MustCompile(p).MatchString(text) {
					t.Errorf("%s: the output does not match %s:\n%s", name, p, text)
				}
			}
			got = append(got, txtar.File{Name: name, Data: []byte(want[name])})
			continue
		}
		got = append(got, txtar.File{Name: name, Data: []byte(text)})
		if !*update {
			if diff := cmp.Diff(want[name], text); diff != "" {
				t.Errorf("%s (-want +got; go test -update rewrites the transcript):\n%s", name, diff)
			}
		}
	}
	if *update {
		ar.Files = got
		if err := os.WriteFile(transcript, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs a command in dir and returns its output (stdout, then stderr)
// and exit status. A command that cannot start fails the test.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return stdout.String() + stderr.String(), cmd.ProcessState.ExitCode()
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

var (
	runPattern     = regexp.MustCompile(`\br[0-9]{8}T[0-9]{6}-[0-9a-f]{8}\b`)
	summaryPattern = regexp.MustCompile(`summary:\n  [^\n]*\n`)
	logSizePattern = regexp.MustCompile(` +[0-9]+ +(succeeded|failed|unknown)`)
	spacesPattern  = regexp.MustCompile(` {2,}`)
)

// normalizer returns a function that replaces what differs from run to
// run in an output: the temporary folders, run ids, times, sizes and
// digests.
func normalizer(work, clone string) func(string) string {
	type rule struct {
		re   *regexp.Regexp
		with string
	}
	rules := []rule{
		{regexp.MustCompile(regexp.QuoteMeta(clone)), "$CLONE"},
		{regexp.MustCompile(regexp.QuoteMeta(work)), "$WORK"},
		{runPattern, "$RUN"},
		{regexp.MustCompile(`[0-9]+ bytes in [0-9.]+ ms`), "N bytes in T ms"},
		{regexp.MustCompile(`artifact [0-9a-f]{12}`), "artifact HASH"},
		{regexp.MustCompile(`\b[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z?\b`), "TIME"},
		{regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ms|µs|s)\b`), "DURATION"},
		{regexp.MustCompile(`\b[0-9a-f]{40}\b`), "SHA"},
	}
	return func(s string) string {
		// The demo's summary is README's first three sentences, which
		// are README's to change, and the log's columns are as wide as
		// the sizes they hold.
		s = summaryPattern.ReplaceAllLiteralString(s, "summary:\n  (the first three sentences of README.md)\n")
		s = logSizePattern.ReplaceAllString(s, " N $1")
		for _, r := range rules {
			s = r.re.ReplaceAllLiteralString(s, r.with)
		}
		return spacesPattern.ReplaceAllLiteralString(s, "  ")
	}
}
