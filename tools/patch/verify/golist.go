package verify

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// goListFlag matches the flags [Checker.GoList] passes on: the ones that
// change what go list reports, none that makes it build or run anything.
// Compiled at first use: every process links this package, few verify.
var goListFlag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-(e|deps|test|find|json(=[A-Za-z,]+)?)$`)
})

// GoList runs go list with args (flags among -e, -deps, -test, -find and
// -json[=fields], then package patterns as a check's) on the export in
// dir, in a sandbox built as a check's, and copies its standard output to
// stdout. It is for tools that read a tree's package graph, such as Go
// navigation: go list reads the tree, GOROOT and the module cache, and
// executes nothing of the repository. The sandbox reads the export in
// place (it makes no copy), so the paths go list prints are the sandbox's:
// [Checker.HostPath] maps them back.
//
// The result's Output holds the tail of go list's standard error; Error
// says why it could not run, Refused that the sandbox lacked a property
// the operator requires.
func (c *Checker) GoList(ctx context.Context, dir string, args []string, stdout io.Writer, opts ...RunOption) (Result, Isolation) {
	r := Result{Name: "go_list", ExitCode: -1}
	for _, a := range args {
		if strings.HasPrefix(a, "-") && !goListFlag().MatchString(a) {
			r.Error = fmt.Sprintf("go list flag %q is not allowed", a)
			return r, Isolation{}
		}
		if !strings.HasPrefix(a, "-") {
			if err := c.checkPatterns([]string{a}); err != nil {
				r.Error = err.Error()
				return r, Isolation{}
			}
			r.Packages = append(r.Packages, a)
		}
	}
	ro := runOptions{}
	for _, o := range opts {
		o(&ro)
	}
	rc, err := c.prepare(dir, &ro)
	if err != nil {
		r.Error = err.Error()
		return r, Isolation{}
	}
	// go list neither builds nor runs: the shared build cache is not
	// needed, and the command would not write it.
	rc.sharedCache = ""
	out := newTail(c.opts.MaxOutputBytes)
	start := time.Now()
	res := c.exec(ctx, rc, command{argv: append([]string{c.goTool().bin, "list"}, args...), inPlace: true, stdout: stdout}, out)
	r.Duration = time.Since(start)
	r.ExitCode, r.TimedOut = res.code, res.timedOut
	r.Output, r.Redacted = rc.redact.redact(out.lines())
	r.OutputBytes, r.Truncated = out.total, out.truncated()
	var iso Isolation
	iso.merge(true, res.probe, c.opts.Unconfined)
	if miss := res.probe.missing(c.opts.Unconfined); len(miss) > 0 && res.err == nil {
		r.Refused = &RefusedError{Missing: miss}
		for _, p := range miss {
			r.Refused.Why = append(r.Refused.Why, fmt.Sprintf("%s: %s", p, res.probe.Failed[p]))
		}
		r.Error, r.ExitCode = r.Refused.Error(), -1
		return r, iso
	}
	switch {
	case res.err != nil:
		r.Error = res.err.Error()
	case res.timedOut:
		r.Error = fmt.Sprintf("killed after %s", c.opts.Timeout)
	default:
		r.Passed = res.code == 0
	}
	return r, iso
}

// HostPath maps a path go list printed in [Checker.GoList]'s sandbox for
// the export in dir back to the host: the export, GOROOT or the module
// cache. It reports false for a path under none of them, which the caller
// must not read. A run without a sandbox prints host paths, which map to
// themselves.
func (c *Checker) HostPath(dir, p string) (string, bool) {
	p = filepath.Clean(p)
	t := c.goTool()
	for _, m := range []struct{ sandbox, host string }{
		{sbExport, dir}, {sbGoRoot, t.root}, {sbModCache, t.modCache},
		{dir, dir}, {t.root, t.root}, {t.modCache, t.modCache},
	} {
		if m.host == "" {
			continue
		}
		if rel, ok := strings.CutPrefix(p, m.sandbox); ok && (rel == "" || rel[0] == filepath.Separator) {
			return m.host + rel, true
		}
	}
	return "", false
}

// GoRoot returns the GOROOT of the go command the checks run, "" when the
// server has none.
func (c *Checker) GoRoot() string { return c.goTool().root }

// ModCache returns the module cache the checks read, "" when the server
// has none.
func (c *Checker) ModCache() string { return c.goTool().modCache }
