package verify

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGoListRefuses names what GoList must not pass to go list: flags
// that build or run, and patterns outside the export.
func TestGoListRefuses(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-exec=/bin/sh", "./..."}, `flag "-exec=/bin/sh" is not allowed`},
		{[]string{"-export", "./..."}, `flag "-export" is not allowed`},
		{[]string{"-toolexec", "x", "./..."}, `flag "-toolexec" is not allowed`},
		{[]string{"-json=Dir;rm", "./..."}, "not allowed"},
		{[]string{"-e", "../outside/..."}, "want a relative package path"},
		{[]string{"-e", "/etc"}, "want a relative package path"},
	} {
		res, _ := c.GoList(context.Background(), t.TempDir(), tc.args, io.Discard)
		if !strings.Contains(res.Error, tc.says) || res.Passed {
			t.Errorf("GoList %q: %+v, want an error saying %q", tc.args, res, tc.says)
		}
	}
}

// TestHostPath maps the sandbox's paths back to the host, and nothing
// else.
func TestHostPath(t *testing.T) {
	c, err := New(Options{ModCache: "/host/modcache"})
	if err != nil {
		t.Fatal(err)
	}
	if c.GoRoot() == "" {
		t.Skip("no go command")
	}
	dir := "/host/export"
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"/verify/export", dir, true},
		{"/verify/export/a/b.go", dir + "/a/b.go", true},
		{"/verify/go/src/fmt", filepath.Join(c.GoRoot(), "src/fmt"), true},
		{"/verify/modcache/x@v1/y", "/host/modcache/x@v1/y", true},
		{"/verify/export/../../etc", "", false},
		{"/verify/exportx/a", "", false},
		{"/etc/passwd", "", false},
		{dir + "/a", dir + "/a", true}, // a run without a sandbox prints host paths
	} {
		got, ok := c.HostPath(dir, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("HostPath(%q) = %q, %t; want %q, %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestGoRootExportEnv: WithGoRootExport points GOROOT, and only GOROOT,
// at the export; the go command itself stays the server's.
func TestGoRootExportEnv(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts       []RunOption
		wantGoRoot string
	}{
		{nil, "GOROOT=/verify/go"},
		{[]RunOption{WithGoRootExport()}, "GOROOT=" + sbExport},
	} {
		ro := runOptions{}
		for _, o := range tc.opts {
			o(&ro)
		}
		rc := &runContext{goRootExport: ro.goRootExport}
		env := rc.env(c.goEnv(sbGoRoot, sbModCache, sbWork), sbExport)
		if !slices.Contains(env, tc.wantGoRoot) || !slices.Contains(env, "PATH=/verify/go/bin") {
			t.Errorf("options %d: env %q, want %s and the server's go on PATH", len(tc.opts), env, tc.wantGoRoot)
		}
	}
}
