package verify

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestCheckSpec(t *testing.T) {
	c, err := New(Options{Checks: []string{"go_build", "go_test"}, FreshBuildCache: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		spec Spec
		ok   bool
	}{
		{Spec{Name: "go_build"}, true},
		{Spec{Name: "go_test", Packages: []string{"./...", "./cmd/x", "./internal/...", "./a.b/c_d/..."}}, true},
		{Spec{Name: "gofmt"}, false}, // not allowlisted here
		{Spec{Name: "sh"}, false},
		{Spec{Name: "go_test", Packages: []string{"../x"}}, false},
		{Spec{Name: "go_test", Packages: []string{"./x/../../y"}}, false},
		{Spec{Name: "go_test", Packages: []string{"-exec=/bin/sh"}}, false},
		{Spec{Name: "go_test", Packages: []string{"./-x"}}, false},
		{Spec{Name: "go_test", Packages: []string{"std"}}, false},
		{Spec{Name: "go_test", Packages: []string{"/abs"}}, false},
		{Spec{Name: "go_test", Packages: []string{"./x y"}}, false},
	} {
		if err := c.CheckSpec(tt.spec); (err == nil) != tt.ok {
			t.Errorf("%+v: %v", tt.spec, err)
		}
	}
	if _, err := New(Options{Checks: []string{"rm"}}); err == nil {
		t.Error("an unknown check in the allowlist was accepted")
	}
}

func TestCheckModules(t *testing.T) {
	for _, tt := range []struct {
		gomod string
		ok    bool
	}{
		{"module m\n", true},
		{"module m\nreplace a/b => ./vendor/b\n", true},
		{"module m\nreplace a/b => example.com/fork v1.0.0\n", true},
		{"module m\nreplace a/b => ../../outside\n", false},
		{"module m\nreplace (\n\ta/b => ./ok\n\tc/d => /abs/path\n)\n", false},
		{"module m\nreplace a/b => sub/../../x\n", false}, // go refuses it too
		{"module m\nreplace a/b => ./sub/../../x\n", false},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tt.gomod), 0o644)
		if err := CheckModules(dir); (err == nil) != tt.ok {
			t.Errorf("%q: %v", tt.gomod, err)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "nested"), 0o755)
	os.WriteFile(filepath.Join(dir, "nested", "go.mod"), []byte("module n\nreplace a => ../../x\n"), 0o644)
	if err := CheckModules(dir); err == nil || !strings.Contains(err.Error(), "nested/go.mod") {
		t.Errorf("nested module: %v", err)
	}
}

func TestTail(t *testing.T) {
	tl := newTail(10)
	for i := range 100 {
		tl.Write([]byte{byte('0' + i%10)})
	}
	if got := tl.String(); got != "0123456789" || tl.total != 100 || !tl.truncated() {
		t.Errorf("tail %q, total %d", got, tl.total)
	}
}

func TestTailLast(t *testing.T) {
	tl := newTail(100)
	tl.Write([]byte("first line\nsecond line\nthird\n"))
	for _, tt := range []struct {
		n    int
		want string
	}{
		{100, "first line\nsecond line\nthird\n"},
		{15, "third\n"},
		{4, "ird\n"},
	} {
		if got, total := tl.last(tt.n); got != tt.want || total != 29 {
			t.Errorf("last(%d) = %q, %d; want %q, 29", tt.n, got, total, tt.want)
		}
	}
}

// TestProgress checks the calls a run makes to its Progress: a start and
// an end for each check, in order, the end counting the check done.
func TestProgress(t *testing.T) {
	c, err := New(Options{SelfHelper: true, BuildCache: filepath.Join(t.TempDir(), "cache")})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n"), 0o644)
	type call struct {
		check       string
		done, total int
	}
	var calls []call
	rep := c.Run(t.Context(), dir, []Spec{{Name: "gofmt"}, {Name: "gofmt"}}, WithProgress(func(check string, done, total int, tail string) {
		calls = append(calls, call{check, done, total})
	}))
	if !rep.Passed {
		t.Fatalf("run: %+v", rep)
	}
	want := []call{{"gofmt", 0, 2}, {"gofmt", 1, 2}, {"gofmt", 1, 2}, {"gofmt", 2, 2}}
	if !slices.Equal(calls, want) {
		t.Errorf("progress calls %v, want %v", calls, want)
	}
}

// writeModuleFiles writes a module of the given files into a new
// directory.
func writeModuleFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestNewLooksForGoAtFirstUse: New runs nothing, so that a server that
// never verifies starts without running go env; the first check that needs
// the toolchain runs it, once.
func TestNewLooksForGoAtFirstUse(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in go command is a shell script")
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	fakeGo := filepath.Join(dir, "go")
	script := "#!/bin/sh\necho run >>" + runs + "\necho /fake/goroot\necho /fake/modcache\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{GoBin: fakeGo, FreshBuildCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(runs); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("New ran the go command (stat: %v)", err)
	}
	for range 2 {
		if got := c.GoRoot(); got != "/fake/goroot" {
			t.Errorf("GoRoot() = %q", got)
		}
		if got := c.ModCache(); got != "/fake/modcache" {
			t.Errorf("ModCache() = %q", got)
		}
	}
	if b, err := os.ReadFile(runs); err != nil || string(b) != "run\n" {
		t.Errorf("go command runs: %q (%v), want one", b, err)
	}
}
