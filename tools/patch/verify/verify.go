// Package verify runs an operator's allowlisted checks (gofmt, go vet,
// go build, go test) on an exported source tree, as a stranger's code
// should be run: in a scrubbed environment, without network, confined to
// its temporary directory, in its own process group killed at the
// deadline, with CPU, memory and output bounded.
//
//	c, err := verify.New(verify.Options{})           // once, at start
//	rep := c.Run(ctx, exportDir, []verify.Spec{{Name: "go_test", Packages: []string{"./..."}}})
//	// rep.Passed, rep.Checks[i].Output (the tail), rep.Isolation ...
//
// There is no free-form command: a check is one of the names in
// Options.Checks, and its only argument is a list of package patterns,
// each "./..." or a relative package path.
//
// Filesystem confinement uses Landlock, applied by a helper: the host
// binary re-executes itself, and the helper restricts itself before it
// executes the check. A binary that wants it calls [RunHelper] first thing
// in main and sets Options.SelfHelper. Where Landlock or a network
// namespace cannot be had, the report says so instead of pretending.
package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Options configure a Checker. The zero value is usable.
type Options struct {
	// Checks is the allowlist: the checks a caller may name. Default
	// [DefaultChecks]. Unknown names are an error at New.
	Checks []string
	// Timeout bounds each check. Default 5 minutes.
	Timeout time.Duration
	// MaxOutputBytes bounds the output kept of each check (its tail).
	// Default 64 KiB.
	MaxOutputBytes int
	// MemoryBytes is each process's address-space limit. Default 8 GiB.
	MemoryBytes uint64
	// GoBin is the go command. Default: "go" on the server's PATH.
	GoBin string
	// ModCache is the module cache checks read (and may not write).
	// Default: the go command's GOMODCACHE.
	ModCache string
	// TempDir is where exports are made. Default os.TempDir().
	TempDir string
	// BuildCache is the go build cache (GOCACHE) the checks share, so that
	// the standard library is not compiled again for every run. Checks
	// can write it, so one check could plant entries a later one trusts;
	// set FreshBuildCache to give every run an empty cache instead.
	// Default: repo-mcp/verify-gocache in the user's cache directory.
	BuildCache string
	// FreshBuildCache gives every run its own empty build cache.
	FreshBuildCache bool
	// SelfHelper says the server's binary calls RunHelper at start, so
	// checks can be confined with Landlock by re-executing it.
	SelfHelper bool
}

// DefaultChecks is the default allowlist.
var DefaultChecks = []string{"gofmt", "go_vet", "go_build", "go_test"}

// Spec is one check a caller asks for.
type Spec struct {
	Name     string
	Packages []string // default ./...
}

// Result is the outcome of one check.
type Result struct {
	Name     string
	Packages []string
	Passed   bool
	ExitCode int // -1 when the check did not exit by itself
	Duration time.Duration
	TimedOut bool
	Output   string // the tail of stdout and stderr, interleaved
	// OutputBytes is the size of the whole output; Output holds its last
	// MaxOutputBytes when it is larger.
	OutputBytes int64
	Truncated   bool
	Error       string // why the check could not run
}

// Isolation says which protections a run actually had.
type Isolation struct {
	Network    bool // a network namespace with no interface up
	Filesystem bool // writes confined to the run's temporary directory
	Notes      []string
}

// Report is the outcome of a run.
type Report struct {
	Passed    bool
	Checks    []Result
	Isolation Isolation
}

// Checker runs checks. It is safe for concurrent use.
type Checker struct {
	opts    Options
	goBin   string
	goRoot  string
	allowed map[string]bool
	sb      sandbox
	self    string // this binary, re-executed as the sandbox helper
}

// New checks the options and finds the go command.
func New(opts Options) (*Checker, error) {
	if opts.Checks == nil {
		opts.Checks = DefaultChecks
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = 64 << 10
	}
	if opts.MemoryBytes == 0 {
		opts.MemoryBytes = 8 << 30
	}
	if opts.TempDir == "" {
		opts.TempDir = os.TempDir()
	}
	if opts.BuildCache == "" && !opts.FreshBuildCache {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = opts.TempDir
		}
		opts.BuildCache = filepath.Join(dir, "repo-mcp", "verify-gocache")
	}
	c := &Checker{opts: opts, allowed: map[string]bool{}}
	if opts.SelfHelper {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("verify: the sandbox helper needs this binary's path: %w", err)
		}
		c.self = self
	}
	for _, name := range opts.Checks {
		if !slices.Contains(DefaultChecks, name) {
			return nil, fmt.Errorf("verify: unknown check %q (known: %s)", name, strings.Join(DefaultChecks, ", "))
		}
		c.allowed[name] = true
	}
	goBin := opts.GoBin
	if goBin == "" {
		goBin = "go"
	}
	path, err := exec.LookPath(goBin)
	if err != nil {
		return c, nil // checks report that go is missing when they run
	}
	c.goBin, _ = filepath.Abs(path)
	if out, err := exec.Command(c.goBin, "env", "GOROOT", "GOMODCACHE").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			c.goRoot = lines[0]
			if c.opts.ModCache == "" {
				c.opts.ModCache = lines[1]
			}
		}
	}
	return c, nil
}

// Allowed lists the allowlisted checks, comma-separated.
func (c *Checker) Allowed() string { return strings.Join(c.opts.Checks, ", ") }

// Checks returns the allowlist, in the operator's order.
func (c *Checker) Checks() []string { return slices.Clone(c.opts.Checks) }

// Allows reports whether a check is allowlisted.
func (c *Checker) Allows(name string) bool { return c.allowed[name] }

// CallTimeout is a bound for a whole run of every allowlisted check.
func (c *Checker) CallTimeout() time.Duration {
	return time.Duration(len(c.opts.Checks)+1) * c.opts.Timeout
}

// TempDir is where exports should be made.
func (c *Checker) TempDir() string { return c.opts.TempDir }

var packagePattern = regexp.MustCompile(`^\./([A-Za-z0-9_][A-Za-z0-9_.+-]*(/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*)?(/\.\.\.|\.\.\.)?$`)

// CheckSpec validates a spec against the allowlist and the package
// pattern grammar.
func (c *Checker) CheckSpec(s Spec) error {
	if !c.allowed[s.Name] {
		return fmt.Errorf("check %q is not in the operator's allowlist (%s)", s.Name, c.Allowed())
	}
	for _, p := range s.Packages {
		if !packagePattern.MatchString(p) || strings.Contains(p, "/../") || strings.HasPrefix(p, "./../") {
			return fmt.Errorf("package pattern %q: want a relative package path (./..., ./cmd/x, ./internal/...)", p)
		}
	}
	return nil
}

// Run runs the checks in order on the tree in dir (a directory the caller
// owns and removes; checks may write into it). A check that cannot start
// fails with its Error set; the run goes on.
func (c *Checker) Run(ctx context.Context, dir string, specs []Spec, opts ...RunOption) Report {
	ro := runOptions{interval: time.Second}
	for _, o := range opts {
		o(&ro)
	}
	rep := Report{Passed: true}
	iso, cleanup, err := c.prepare(dir)
	defer cleanup()
	for i, s := range specs {
		var r Result
		if err != nil {
			r = Result{Name: s.Name, ExitCode: -1, Error: err.Error()}
		} else {
			r = c.runOne(ctx, iso, dir, s, &ro, i, len(specs))
		}
		rep.Passed = rep.Passed && r.Passed
		rep.Checks = append(rep.Checks, r)
		if ro.progress != nil {
			ro.progress(s.Name, i+1, len(specs), "")
		}
	}
	if len(specs) == 0 {
		rep.Passed = false
	}
	rep.Isolation = c.isolation() // after the run: what the platform allowed is known
	return rep
}

// runEnv is what every check of a run shares.
type runEnv struct {
	Isolation
	env   []string
	write []string // the directories checks may write, besides the tree
}

// prepare makes the run's home, caches and environment, and refuses
// module files that reach outside the tree.
func (c *Checker) prepare(dir string) (*runEnv, func(), error) {
	re := &runEnv{Isolation: c.isolation()}
	if c.goBin == "" {
		return re, func() {}, errors.New("the go command is not installed on the server")
	}
	scratch, err := os.MkdirTemp(c.opts.TempDir, "repo-mcp-verify-home-")
	if err != nil {
		return re, func() {}, errors.New("the run's temporary directory cannot be created")
	}
	cleanup := func() { RemoveAll(scratch) }
	for _, d := range []string{"home", "tmp", "gocache"} {
		if err := os.Mkdir(filepath.Join(scratch, d), 0o700); err != nil {
			return re, cleanup, errors.New("the run's temporary directory cannot be prepared")
		}
	}
	re.write = []string{scratch}
	gocache := filepath.Join(scratch, "gocache")
	if !c.opts.FreshBuildCache {
		if err := os.MkdirAll(c.opts.BuildCache, 0o700); err != nil {
			return re, cleanup, errors.New("the build cache cannot be created; see the server's verify configuration")
		}
		gocache = c.opts.BuildCache
		re.write = append(re.write, gocache)
	}
	re.env = []string{
		"PATH=" + filepath.Dir(c.goBin) + ":/usr/bin:/bin",
		"HOME=" + filepath.Join(scratch, "home"),
		"TMPDIR=" + filepath.Join(scratch, "tmp"),
		"GOCACHE=" + gocache,
		"GOMODCACHE=" + c.opts.ModCache,
		"GOFLAGS=-mod=readonly -buildvcs=false",
		"GOTOOLCHAIN=local",
		"GOPROXY=off",
		"GOENV=off",
		"GOWORK=off",
		"GOTELEMETRY=off",
		"CGO_ENABLED=0",
		"LANG=C",
	}
	if c.goRoot != "" {
		re.env = append(re.env, "GOROOT="+c.goRoot)
		re.env[0] = "PATH=" + filepath.Join(c.goRoot, "bin") + ":" + strings.TrimPrefix(re.env[0], "PATH=") // gofmt, for go fmt
	}
	if err := CheckModules(dir); err != nil {
		return re, cleanup, err
	}
	return re, cleanup, nil
}

// command returns the argv of a check.
func (c *Checker) command(s Spec) []string {
	pkgs := s.Packages
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	switch s.Name {
	case "gofmt":
		// go fmt runs gofmt -l -w on the packages' files (not testdata,
		// not other modules) and names each file it had to change; the
		// changes land in the export only.
		return append([]string{c.goBin, "fmt"}, pkgs...)
	case "go_vet":
		return append([]string{c.goBin, "vet"}, pkgs...)
	case "go_build":
		return append([]string{c.goBin, "build", "-o", os.DevNull}, pkgs...)
	case "go_test":
		return append([]string{c.goBin, "test", "-count=1"}, pkgs...)
	}
	return nil
}

func (c *Checker) runOne(ctx context.Context, re *runEnv, dir string, s Spec, ro *runOptions, done, total int) Result {
	r := Result{Name: s.Name, Packages: s.Packages, ExitCode: -1}
	if len(r.Packages) == 0 {
		r.Packages = []string{"./..."}
	}
	if err := c.CheckSpec(s); err != nil {
		r.Error = err.Error()
		return r
	}
	out := newTail(c.opts.MaxOutputBytes)
	if ro.progress != nil {
		ro.progress(s.Name, done, total, "")
	}
	var seen int64
	tick := startTicker(ro.progress, ro.interval, func() {
		if tail, written := out.last(ProgressTailBytes); written != seen {
			seen = written
			ro.progress(s.Name, done, total, tail)
		}
	})
	start := time.Now()
	code, timedOut, err := c.exec(ctx, re, dir, c.command(s), out)
	tick.halt()
	r.Duration = time.Since(start)
	r.ExitCode, r.TimedOut = code, timedOut
	r.Output, r.OutputBytes, r.Truncated = out.String(), out.total, out.truncated()
	switch {
	case err != nil:
		r.Error = err.Error()
	case timedOut:
		r.Error = fmt.Sprintf("killed after %s", c.opts.Timeout)
	case s.Name == "gofmt":
		r.Passed = code == 0 && out.total == 0 // go fmt lists the files it had to change
	default:
		r.Passed = code == 0
	}
	return r
}
