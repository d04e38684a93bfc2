package verify

import (
	"context"
	"io"
	"path/filepath"
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
