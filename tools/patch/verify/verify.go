package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configure a Checker. The zero value is usable.
type Options struct {
	// Checks is the allowlist: the checks a caller may name. Default
	// [DefaultChecks]. Unknown names are an error at New.
	Checks []string
	// Timeout bounds each check. Default 5 minutes. go test gets it twice:
	// once to build the tests, once to run them with a -timeout a quarter
	// (at least 30s) shorter, so a hanging test prints Go's dump.
	Timeout time.Duration
	// MaxOutputBytes bounds the output kept of each check (its tail).
	// Default 64 KiB.
	MaxOutputBytes int
	// MemoryBytes is each process's address-space limit. Default 8 GiB.
	MemoryBytes uint64
	// MaxProcs bounds the processes and threads of a check (RLIMIT_NPROC
	// of its uid, which no other check shares). Default 1024.
	MaxProcs uint64
	// DiskBytes bounds what a check writes: the size of its tmpfs, which
	// holds its copy of the export too. Default 2 GiB.
	DiskBytes uint64
	// UID, UIDCount and GID are what checks run as when the server runs
	// as root: each running sandbox leases a uid of its own from UID to
	// UID+UIDCount-1, since the kernel counts RLIMIT_NPROC per uid (see
	// MaxProcs), and all share GID, which the shared build cache belongs
	// to. A check waits while every uid is leased. Defaults: UID 65536,
	// UIDCount 64, GID 65536: ids above the 16-bit ones and below where
	// useradd starts subordinate ids, which no user or service of a
	// usual system holds (its processes would count against a check's
	// limit).
	UID, UIDCount, GID int
	// UIDLeaseDir holds the uid leases, shared by every server of the
	// host that runs checks. Default: repo-mcp-verify-uids-<server's uid>
	// in os.TempDir().
	UIDLeaseDir string
	// Unconfined lists the isolation properties checks may run without
	// where the platform cannot give them. Default none: such a check
	// does not run.
	Unconfined []Property
	// Bwrap is the bubblewrap command. Default "bwrap" on PATH.
	Bwrap string
	// GoBin is the go command. Default: "go" on the server's PATH.
	GoBin string
	// ModCache is the module cache checks read (and may not write).
	// Default: the go command's GOMODCACHE.
	ModCache string
	// TempDir is where exports are made. Default os.TempDir().
	TempDir string
	// BuildCache is the build cache the checks share, so that the
	// standard library is not compiled again for every run; only checks
	// that run no code of the repository write it (see the package doc).
	// Default: repo-mcp/verify-cache in the user's cache directory.
	BuildCache string
	// FreshBuildCache gives every check its own empty build cache.
	FreshBuildCache bool
	// SelfHelper says the server's binary calls [RunHelper] at start, so
	// the sandbox can run it as its first process. Without it no sandbox
	// is built.
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
	Output   string // the tail of stdout and stderr, interleaved, redacted
	// OutputBytes is the size of the whole output; Output holds its last
	// MaxOutputBytes when it is larger.
	OutputBytes int64
	Truncated   bool
	// Redacted counts the secrets replaced in Output.
	Redacted int
	Error    string // why the check could not run
	// Refused is set when the check did not run because its sandbox
	// lacked a property the operator requires.
	Refused *RefusedError
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
	allowed map[string]bool
	self    string // this binary, run as the sandbox helper
	// The go command and the sandbox are found out at the first check
	// that needs them, not in New: a server that never verifies does not
	// pay for running go env and reading its own binary at start.
	goTool  func() goToolchain
	sandbox func() *sandboxSetup
}

// goToolchain is where the go command and what it reads are; all ""
// when go is not installed.
type goToolchain struct {
	bin, root, modCache string
}

// New checks the options. The go command and bubblewrap are looked for
// when a check first needs them.
func New(opts Options) (*Checker, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
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
	c.goTool = sync.OnceValue(c.findGo)
	c.sandbox = sync.OnceValue(c.setupSandbox)
	return c, nil
}

func (opts *Options) defaults() error {
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
	if opts.MaxProcs == 0 {
		opts.MaxProcs = 1024
	}
	if opts.DiskBytes == 0 {
		opts.DiskBytes = 2 << 30
	}
	if opts.UID == 0 {
		opts.UID = 65536
	}
	if opts.UIDCount <= 0 {
		opts.UIDCount = 64
	}
	if opts.GID == 0 {
		opts.GID = 65536
	}
	if opts.UIDLeaseDir == "" {
		opts.UIDLeaseDir = filepath.Join(os.TempDir(), fmt.Sprintf("repo-mcp-verify-uids-%d", os.Geteuid()))
	}
	if opts.TempDir == "" {
		opts.TempDir = os.TempDir()
	}
	for _, p := range opts.Unconfined {
		if !slices.Contains(Properties, p) {
			return fmt.Errorf("verify: unknown isolation property %q", p)
		}
	}
	if opts.BuildCache == "" && !opts.FreshBuildCache {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = opts.TempDir
		}
		opts.BuildCache = filepath.Join(dir, "repo-mcp", "verify-cache")
	}
	return nil
}

// findGo finds the go command, its GOROOT and module cache; a check
// reports that go is missing when it runs.
func (c *Checker) findGo() goToolchain {
	t := goToolchain{modCache: c.opts.ModCache}
	goBin := c.opts.GoBin
	if goBin == "" {
		goBin = "go"
	}
	path, err := exec.LookPath(goBin)
	if err != nil {
		return t
	}
	t.bin, _ = filepath.Abs(path)
	if out, err := exec.Command(t.bin, "env", "GOROOT", "GOMODCACHE").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			t.root = lines[0]
			if t.modCache == "" {
				t.modCache = lines[1]
			}
		}
	}
	return t
}

// Allowed lists the allowlisted checks, comma-separated.
func (c *Checker) Allowed() string { return strings.Join(c.opts.Checks, ", ") }

// Checks returns the allowlist, in the operator's order.
func (c *Checker) Checks() []string { return slices.Clone(c.opts.Checks) }

// Allows reports whether a check is allowlisted.
func (c *Checker) Allows(name string) bool { return c.allowed[name] }

// CallTimeout is a bound for a whole run of every allowlisted check (go
// test counts twice: building its tests and running them each get
// Timeout).
func (c *Checker) CallTimeout() time.Duration {
	n := len(c.opts.Checks) + 1
	if c.allowed["go_test"] {
		n++
	}
	return time.Duration(n) * c.opts.Timeout
}

// TempDir is where exports should be made.
func (c *Checker) TempDir() string { return c.opts.TempDir }

// packagePattern matches the package patterns a check may name. It is
// compiled at first use: every process links this package, few verify.
var packagePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\./([A-Za-z0-9_][A-Za-z0-9_.+-]*(/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*)?(/\.\.\.|\.\.\.)?$`)
})

// CheckSpec validates a spec against the allowlist and the package
// pattern grammar.
func (c *Checker) CheckSpec(s Spec) error {
	if !c.allowed[s.Name] {
		return fmt.Errorf("check %q is not in the operator's allowlist (%s)", s.Name, c.Allowed())
	}
	return c.checkPatterns(s.Packages)
}

// checkPatterns validates package patterns against the grammar.
func (c *Checker) checkPatterns(pkgs []string) error {
	for _, p := range pkgs {
		if !packagePattern().MatchString(p) || strings.Contains(p, "/../") || strings.HasPrefix(p, "./../") {
			return fmt.Errorf("package pattern %q: want a relative package path (./..., ./cmd/x, ./internal/...)", p)
		}
	}
	return nil
}

// runContext is what every check of a run shares.
type runContext struct {
	dir         string // the export, on the host
	sharedCache string // the shared build cache on the host, "" for none
	required    []Property
	absent      []string
	redact      *redactor
	// goRootExport sets GOROOT to the export (WithGoRootExport).
	goRootExport bool
}

// execResult is the outcome of running one check's command.
type execResult struct {
	code     int
	timedOut bool
	probe    probeReport
	err      error // the check could not run
	// sandboxErr says the sandbox could not be built at all.
	sandboxErr error
}

// Run runs the checks in order on the tree in dir (a directory the caller
// owns and removes; the checks see a copy of it). A check that cannot
// start fails with its Error set; the run goes on.
func (c *Checker) Run(ctx context.Context, dir string, specs []Spec, opts ...RunOption) Report {
	ro := runOptions{interval: time.Second}
	for _, o := range opts {
		o(&ro)
	}
	rep := Report{Passed: len(specs) > 0}
	rc, err := c.prepare(dir, &ro)
	for i, s := range specs {
		var r Result
		if err != nil {
			r = Result{Name: s.Name, ExitCode: -1, Error: err.Error()}
		} else {
			var probe probeReport
			r, probe = c.runOne(ctx, rc, s, &ro, i, len(specs))
			rep.Isolation.merge(i == 0, probe, c.opts.Unconfined)
		}
		rep.Passed = rep.Passed && r.Passed
		rep.Checks = append(rep.Checks, r)
		if ro.progress != nil {
			ro.progress(s.Name, i+1, len(specs), "")
		}
	}
	return rep
}

// prepare checks what the run needs and refuses module files that reach
// outside the tree.
func (c *Checker) prepare(dir string, ro *runOptions) (*runContext, error) {
	rc := &runContext{dir: dir, absent: ro.absent, redact: newRedactor(ro.secrets), goRootExport: ro.goRootExport}
	for _, p := range Properties {
		if !slices.Contains(c.opts.Unconfined, p) {
			rc.required = append(rc.required, p)
		}
	}
	if t := c.goTool(); t.bin == "" || t.root == "" {
		return nil, errors.New("the go command is not installed on the server")
	}
	if err := CheckModules(dir); err != nil {
		return nil, err
	}
	// The export's directory is the server's; the sandbox uid reads the
	// tree through a bind of it, so its top must be readable.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, fmt.Errorf("the export cannot be prepared: %w", err)
	}
	if !c.opts.FreshBuildCache {
		if err := c.sharedCacheDir(); err != nil {
			return nil, err
		}
		rc.sharedCache = c.opts.BuildCache
	}
	return rc, nil
}

// sharedCacheDir makes the shared build cache. When the server runs as
// root, sandboxes of several uids write it: it belongs to root and the
// sandboxes' group, which may add entries (see shareCache).
func (c *Checker) sharedCacheDir() error {
	if err := os.MkdirAll(c.opts.BuildCache, 0o700); err != nil {
		return errors.New("the build cache cannot be created; see the server's verify configuration")
	}
	if os.Getuid() != 0 {
		return nil
	}
	if err := shareCache(c.opts.BuildCache, c.opts.GID); err != nil {
		return fmt.Errorf("the build cache cannot be given to the sandboxes' group: %w", err)
	}
	return nil
}

// goEnv is the environment of the go command in a check: only what it
// needs, nothing of the server's.
func (c *Checker) goEnv(goRoot, modCache, work string) []string {
	return []string{
		"PATH=" + filepath.Join(goRoot, "bin"),
		"HOME=" + filepath.Join(work, "home"),
		"TMPDIR=" + filepath.Join(work, "tmp"),
		"GOCACHE=" + filepath.Join(work, "gocache"),
		"GOROOT=" + goRoot,
		"GOMODCACHE=" + modCache,
		"GOFLAGS=-mod=readonly -buildvcs=false",
		"GOTOOLCHAIN=local",
		"GOPROXY=off",
		"GOENV=off",
		"GOWORK=off",
		"GOTELEMETRY=off",
		"CGO_ENABLED=0",
		"LANG=C",
	}
}

// env is goEnv for this run: GOROOT is export, as the command sees it,
// when the run asked for it (WithGoRootExport).
func (rc *runContext) env(env []string, export string) []string {
	if !rc.goRootExport {
		return env
	}
	for i, kv := range env {
		if strings.HasPrefix(kv, "GOROOT=") {
			env[i] = "GOROOT=" + export
		}
	}
	return env
}

// limits are the resource limits of a check.
func (c *Checker) limits() limits {
	return limits{
		Procs:  c.opts.MaxProcs,
		Memory: c.opts.MemoryBytes,
		CPU:    uint64(c.opts.Timeout/time.Second) + 10,
		File:   min(c.opts.DiskBytes, 1<<30),
		Files:  4096,
		Disk:   c.opts.DiskBytes,
	}
}

// command is one run of the go command in a check.
type command struct {
	argv []string // go and its arguments, as the server would run it
	// runsCode says the command runs code of the repository (go test):
	// the shared build cache is then read-only to it.
	runsCode bool
	// sandboxArgs are the arguments inside the sandbox, which differ
	// from argv's where they name the helper.
	inSandbox []string
	// inPlace runs the command in the read-only export itself rather than
	// in a copy: for a command that writes nothing there (go list).
	inPlace bool
	// stdout, when set, receives the command's standard output, and the
	// output writer its standard error only.
	stdout io.Writer
}

// sandboxArgs returns the go command's arguments inside the sandbox.
func (cmd command) sandboxArgs() []string {
	if cmd.inSandbox != nil {
		return cmd.inSandbox
	}
	return cmd.argv[1:]
}

// commands returns what a check runs: its go command, after, for go test
// with a shared build cache, a go test that vets and builds every test
// binary and runs none (-exec names the helper, which exits at once). That
// first run executes no code of the repository, so it may fill the shared
// cache with what the second, which runs the tests with the cache
// read-only, then finds there: the standard library packages only tests
// import, the test variants of the repository's packages, vet's results.
func (c *Checker) commands(s Spec, shared bool) []command {
	argv := c.argv(s)
	if s.Name != "go_test" {
		return []command{{argv: argv}}
	}
	run := command{argv: argv, runsCode: true}
	if !shared {
		return []command{run}
	}
	// go test's vet runs here too: its results (and the facts vet keeps
	// of every dependency) are cached like the builds.
	build := append([]string{"test", "-count=1", "-exec=" + sbHelper + " " + noopArg}, argv[len(argv)-len(s.packages()):]...)
	return []command{{argv: append([]string{c.goTool().bin}, build...), inSandbox: build}, run}
}

func (s Spec) packages() []string {
	if len(s.Packages) == 0 {
		return []string{"./..."}
	}
	return s.Packages
}

// argv returns the go command line of a check.
func (c *Checker) argv(s Spec) []string {
	pkgs := s.Packages
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	switch s.Name {
	case "gofmt":
		// go fmt runs gofmt -l -w on the packages' files (not testdata,
		// not other modules) and names each file it had to change; the
		// changes land in the check's copy only.
		return append([]string{c.goTool().bin, "fmt"}, pkgs...)
	case "go_vet":
		return append([]string{c.goTool().bin, "vet"}, pkgs...)
	case "go_build":
		return append([]string{c.goTool().bin, "build", "-o", os.DevNull}, pkgs...)
	case "go_test":
		// -json streams each test's output as it comes (without it, go
		// test holds a package's output until the package ends, and a
		// killed check would lose it); the shorter -timeout makes a
		// hanging test print its goroutines before the check is killed
		// (the margin covers go test's vet and link).
		timeout := max(c.opts.Timeout-max(c.opts.Timeout/4, 30*time.Second), time.Second)
		return append([]string{c.goTool().bin, "test", "-count=1", "-json", "-timeout=" + timeout.String()}, pkgs...)
	}
	return nil
}

func (c *Checker) runOne(ctx context.Context, rc *runContext, s Spec, ro *runOptions, done, total int) (Result, probeReport) {
	r := Result{Name: s.Name, Packages: s.Packages, ExitCode: -1}
	if len(r.Packages) == 0 {
		r.Packages = []string{"./..."}
	}
	if err := c.CheckSpec(s); err != nil {
		r.Error = err.Error()
		return r, probeReport{}
	}
	out := newTail(c.opts.MaxOutputBytes)
	var w io.Writer = out
	var json *testJSON
	if s.Name == "go_test" {
		json = &testJSON{w: out}
		w = json
	}
	if ro.progress != nil {
		ro.progress(s.Name, done, total, "")
	}
	var seen int64
	tick := startTicker(ro.progress, ro.interval, func() {
		if tail, written := out.last(ProgressTailBytes); written != seen {
			seen = written
			tail, _ = rc.redact.redact(tail)
			ro.progress(s.Name, done, total, tail)
		}
	})
	start := time.Now()
	var res execResult
	cmds := c.commands(s, rc.sharedCache != "")
	for i, cmd := range cmds {
		last := i == len(cmds)-1
		if last {
			res = c.exec(ctx, rc, cmd, w)
			break
		}
		// A build that passes says only "ok" for each package: its output
		// is shown only when it fails.
		pre := newTail(c.opts.MaxOutputBytes)
		res = c.exec(ctx, rc, cmd, pre)
		if res.code != 0 || res.err != nil || res.timedOut || len(res.probe.missing(c.opts.Unconfined)) > 0 {
			io.WriteString(w, pre.lines())
			break
		}
	}
	if json != nil {
		json.Flush()
	}
	tick.halt()
	r.Duration = time.Since(start)
	r.ExitCode, r.TimedOut = res.code, res.timedOut
	r.Output, r.Redacted = rc.redact.redact(out.lines())
	r.OutputBytes, r.Truncated = out.total, out.truncated()
	if miss := res.probe.missing(c.opts.Unconfined); len(miss) > 0 && res.err == nil {
		r.Refused = &RefusedError{Missing: miss}
		for _, p := range miss {
			r.Refused.Why = append(r.Refused.Why, fmt.Sprintf("%s: %s", p, res.probe.Failed[p]))
		}
		r.Error, r.ExitCode = r.Refused.Error(), -1
		return r, res.probe
	}
	switch {
	case res.err != nil:
		r.Error = res.err.Error()
	case res.timedOut:
		r.Error = fmt.Sprintf("killed after %s", c.opts.Timeout)
	case s.Name == "gofmt":
		r.Passed = res.code == 0 && out.total == 0 // go fmt lists the files it had to change
	default:
		r.Passed = res.code == 0
	}
	return r, res.probe
}

// exitCode turns the error of a finished command into its exit code.
func exitCode(err error, timedOut bool) (int, error) {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		return exit.ExitCode(), nil
	case timedOut:
		return -1, nil
	}
	return -1, err
}
