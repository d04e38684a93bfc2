//go:build linux

package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// etcFiles are the only files of /etc a check sees: enough for
// "localhost" to resolve and for os/user to name the check's uid.
func etcFiles(uid, gid int) map[string]string {
	return map[string]string{
		"/etc/hosts":  "127.0.0.1 localhost\n::1 localhost\n",
		"/etc/passwd": fmt.Sprintf("nobody:x:%d:%d:nobody:/work/home:/nonexistent\n", uid, gid),
		"/etc/group":  fmt.Sprintf("nogroup:x:%d:\n", gid),
	}
}

// sandboxSetup is what a Checker finds out once about building sandboxes.
type sandboxSetup struct {
	bwrap string   // "" when bubblewrap is not installed
	libs  []string // what the helper binary needs to start
	err   error    // why no sandbox can be built
	uids  uidLeaser
}

func (c *Checker) setupSandbox() *sandboxSetup {
	sb := &sandboxSetup{}
	if c.self == "" {
		sb.err = errors.New("the server does not run the sandbox helper (verify.Options.SelfHelper)")
		return sb
	}
	bwrap := c.opts.Bwrap
	if bwrap == "" {
		bwrap = "bwrap"
	}
	path, err := exec.LookPath(bwrap)
	if err != nil {
		sb.err = fmt.Errorf("bubblewrap (%s) is not installed", bwrap)
		return sb
	}
	sb.bwrap = path
	sb.uids = uidLeaser{dir: c.opts.UIDLeaseDir, first: c.opts.UID, count: c.opts.UIDCount, poll: 100 * time.Millisecond}
	sb.libs, err = sharedLibs(c.self)
	if err != nil {
		sb.err = fmt.Errorf("the helper binary: %w", err)
	}
	return sb
}

// binds are the host files a check's view is built from, and the
// descriptors bubblewrap reads the view's files of /etc from.
type binds struct {
	files []*os.File
	args  []string
}

func (b *binds) add(flag, host, dest string) error {
	if _, err := os.Stat(host); err != nil {
		return fmt.Errorf("the sandbox needs %s: %w", dest, err)
	}
	b.args = append(b.args, flag, host, dest)
	return nil
}

// data adds a read-only file holding content at dest.
func (b *binds) data(content, dest string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	_, err = w.WriteString(content) // small: fits the pipe's buffer
	w.Close()
	if err != nil {
		r.Close()
		return err
	}
	b.files = append(b.files, r)
	b.args = append(b.args, "--perms", "0644", "--ro-bind-data", strconv.Itoa(2+len(b.files)), dest)
	return nil
}

func (b *binds) close() {
	for _, f := range b.files {
		f.Close()
	}
}

// exec runs one go command of a check on the run's export, in a sandbox
// when the platform gives one (else as execBare allows), and returns its
// outcome and what its probe found.
func (c *Checker) exec(ctx context.Context, rc *runContext, cmd command, out io.Writer) execResult {
	if err := c.sandbox().err; err != nil {
		return c.execBare(ctx, rc, cmd, out, err.Error())
	}
	res := c.execSandboxed(ctx, rc, cmd, out)
	if res.sandboxErr != nil {
		return c.execBare(ctx, rc, cmd, out, res.sandboxErr.Error())
	}
	return res
}

func (c *Checker) execSandboxed(ctx context.Context, rc *runContext, run command, out io.Writer) execResult {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	uid := c.opts.UID // a server that is not root keeps its own uid: see the package doc
	if os.Geteuid() == 0 {
		leased, release, err := c.sandbox().uids.lease(ctx)
		if err != nil {
			return execResult{err: err}
		}
		defer release()
		uid = leased
	}
	var b binds
	defer b.close()
	spec, err := c.helperSpec(rc, run, uid, &b)
	if err != nil {
		return execResult{sandboxErr: err}
	}
	reportR, reportW, err := os.Pipe()
	if err != nil {
		return execResult{err: err}
	}
	defer reportR.Close()
	b.files = append(b.files, reportW)
	spec.ReportFD = 2 + len(b.files)
	raw, err := json.Marshal(spec)
	if err != nil {
		return execResult{err: err}
	}
	bwrap := c.sandbox().bwrap
	args := append([]string{bwrap}, c.bwrapArgs(&b)...)
	args = append(args, "--setenv", helperEnv, string(raw), "--", sbHelper)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bwrap)
	cmd.Args, cmd.Dir, cmd.Env = args, "/", []string{}
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = out, io.MultiWriter(out, &limitedBuffer{buf: &stderr, max: 4 << 10}), b.files
	if run.stdout != nil {
		cmd.Stdout = run.stdout
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Killing bubblewrap kills the namespace's init (--die-with-parent),
	// and with it every process of the check, whatever session or group
	// it made for itself.
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		reportW.Close()
		return execResult{sandboxErr: fmt.Errorf("starting bubblewrap: %w", err)}
	}
	reportW.Close()
	// bubblewrap holds the report's write end too, so the read ends with
	// the sandbox; the helper has decided by then whether the check ran.
	probe, perr := readReport(reportR)
	err = cmd.Wait()
	res := execResult{probe: probe, timedOut: ctx.Err() == context.DeadlineExceeded}
	if perr != nil {
		// The helper never reported: bubblewrap could not build the
		// sandbox (no user namespaces, say), or the check was killed.
		if res.timedOut {
			res.err = errors.New("the sandbox did not start before the deadline")
			return res
		}
		return execResult{sandboxErr: fmt.Errorf("bubblewrap could not build the sandbox: %s", strings.TrimSpace(stderr.String()))}
	}
	res.code, res.err = exitCode(err, res.timedOut)
	return res
}

// readReport reads the probe's report, which the helper writes before it
// executes the check.
func readReport(r io.Reader) (probeReport, error) {
	var rep probeReport
	data, err := io.ReadAll(io.LimitReader(r, 64<<10))
	if err != nil {
		return rep, err
	}
	if len(data) == 0 {
		return rep, errors.New("no report")
	}
	return rep, json.Unmarshal(data, &rep)
}

// helperSpec builds what the helper is told, and the binds of the view.
func (c *Checker) helperSpec(rc *runContext, cmd command, uid int, b *binds) (*helperSpec, error) {
	t := c.goTool()
	cache := cacheProgConfig{Private: filepath.Join(sbWork, "gocache", "private")}
	if rc.sharedCache != "" {
		cache.Shared, cache.Write = sbCache, !cmd.runsCode
	}
	spec := &helperSpec{
		Src: sbExport, Work: sbWork, InPlace: cmd.inPlace,
		Require:   rc.required,
		ServerUID: os.Getuid(),
		UID:       uid, GID: c.opts.GID,
		ServerNS: map[string]uint64{"mnt": nsInode("mnt"), "pid": nsInode("pid"), "net": nsInode("net"), "user": nsInode("user")},
		Absent:   append([]string{"/etc/shadow", "/root", rc.dir, c.self, t.root, t.modCache, rc.sharedCache}, rc.absent...),
		ReadOnly: []string{"/", "/etc", sbExport, sbGoRoot, sbModCache},
		Top:      []string{"verify", "work", "proc", "dev", "etc"},
		Limits:   c.limits(),
		Argv:     append([]string{filepath.Join(sbGoRoot, "bin", "go")}, cmd.sandboxArgs()...),
		Env: append(c.goEnv(sbGoRoot, sbModCache, sbWork),
			"GOCACHEPROG="+sbHelper+" "+cacheProgArg, cacheProgEnv+"="+cache.encode()),
	}
	spec.Absent = slices.DeleteFunc(spec.Absent, func(p string) bool { return p == "" || isUnder(p, "/verify") || isUnder(p, "/work") })
	if cache.Shared != "" && !cache.Write {
		spec.ReadOnly = append(spec.ReadOnly, sbCache)
	}
	for _, add := range []struct{ flag, host, dest string }{
		{"--ro-bind", rc.dir, sbExport},
		{"--ro-bind", c.self, sbHelper},
		{"--ro-bind", t.root, sbGoRoot},
		{"--ro-bind", t.modCache, sbModCache},
	} {
		if err := b.add(add.flag, add.host, add.dest); err != nil {
			return nil, err
		}
	}
	if rc.sharedCache != "" {
		flag := "--ro-bind"
		if cache.Write {
			flag = "--bind"
		}
		if err := b.add(flag, rc.sharedCache, sbCache); err != nil {
			return nil, err
		}
	}
	for _, lib := range c.sandbox().libs {
		if err := b.add("--ro-bind", lib, lib); err != nil {
			return nil, err
		}
		if top := strings.Split(lib, "/")[1]; !slices.Contains(spec.Top, top) {
			spec.Top = append(spec.Top, top)
		}
	}
	files := etcFiles(uid, c.opts.GID)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := b.data(files[name], name); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// parentDirs returns the parents of every destination in bubblewrap's
// bind arguments, parents first.
func parentDirs(args []string) []string {
	var dirs []string
	for i := 0; i+2 < len(args); i++ {
		if !slices.Contains([]string{"--bind", "--ro-bind", "--ro-bind-data"}, args[i]) {
			continue
		}
		for d := filepath.Dir(args[i+2]); d != "/"; d = filepath.Dir(d) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	return dirs
}

func isUnder(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// bwrapArgs are bubblewrap's options: every namespace, a tmpfs of bounded
// size for what the check writes, the binds, and a read-only root.
//
// As root, bubblewrap makes no user namespace: the helper starts as root
// with CAP_SETUID and CAP_SETGID only, and becomes the sandbox uid before
// it runs anything of the check, so the check runs as that uid on the
// host itself. Otherwise bubblewrap makes a user namespace, the check
// keeps the server's uid, and the probe says so.
func (c *Checker) bwrapArgs(b *binds) []string {
	args := []string{"--unshare-all"} // user, ipc, pid, net (loopback up), uts, cgroup
	if os.Getuid() == 0 {
		args = []string{"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
			"--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"}
	}
	args = append(args,
		"--die-with-parent",
		"--new-session",
		"--clearenv",
		"--hostname", "verify",
		"--proc", "/proc",
		"--dev", "/dev",
		"--perms", "0777", "--size", strconv.FormatUint(c.opts.DiskBytes, 10), "--tmpfs", sbWork,
	)
	// bubblewrap makes the parents of what it mounts; made here, they are
	// readable by the sandbox uid.
	for _, dir := range parentDirs(b.args) {
		args = append(args, "--perms", "0755", "--dir", dir)
	}
	args = append(args, b.args...)
	return append(args, "--remount-ro", "/", "--chdir", sbWork)
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
