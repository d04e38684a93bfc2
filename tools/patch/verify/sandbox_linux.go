//go:build linux

package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	helperEnv      = "REPO_MCP_VERIFY_HELPER"
	helperWriteEnv = "REPO_MCP_VERIFY_WRITE"
)

// netMode is how a check gets its own network namespace.
type netMode int

const (
	netUnknown netMode = iota
	netRoot            // CLONE_NEWNET: the server runs with CAP_SYS_ADMIN
	netUser            // CLONE_NEWUSER|CLONE_NEWNET: unprivileged user namespaces
	netNone            // neither could be had
)

// sandbox remembers what the platform allowed, found by trying.
type sandbox struct {
	once     sync.Once
	mu       sync.Mutex
	net      netMode
	landlock int  // Landlock ABI version; 0 when not available
	helper   bool // re-executing this binary as the helper works
}

func (c *Checker) sandbox() *sandbox {
	c.sb.once.Do(func() {
		v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
		if errno == 0 {
			c.sb.landlock = int(v)
		}
		c.sb.helper = c.self != "" && c.sb.landlock > 0 && c.probeHelper()
	})
	return &c.sb
}

// probeHelper runs `go version` through the helper: it proves that this
// binary calls RunHelper and that the helper can confine itself.
func (c *Checker) probeHelper() bool {
	if c.goBin == "" {
		return false
	}
	tmp, err := os.MkdirTemp(c.opts.TempDir, "repo-mcp-verify-probe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(c.self, c.goBin, "version")
	cmd.Env = []string{helperEnv + "=1", helperWriteEnv + "=" + tmp, "HOME=" + tmp, "GOENV=off", "GOTOOLCHAIN=local"}
	out, err := cmd.Output()
	return err == nil && strings.HasPrefix(string(out), "go version")
}

func (c *Checker) isolation() Isolation {
	sb := c.sandbox()
	sb.mu.Lock()
	mode := sb.net
	sb.mu.Unlock()
	iso := Isolation{Network: mode == netRoot || mode == netUser || mode == netUnknown}
	switch {
	case sb.helper:
		iso.Filesystem = true
	case sb.landlock == 0:
		iso.Notes = append(iso.Notes, "Landlock is not available on this kernel: checks can write outside their temporary directory")
	case c.self == "":
		iso.Notes = append(iso.Notes, "the server does not run the sandbox helper (verify.Options.SelfHelper): checks can write outside their temporary directory")
	default:
		iso.Notes = append(iso.Notes, "the sandbox helper did not start (does main call verify.RunHelper?): checks can write outside their temporary directory")
	}
	return iso
}

// exec runs argv in dir and waits for it, killing its whole process group
// at the deadline. It returns the exit code.
func (c *Checker) exec(ctx context.Context, re *runEnv, dir string, argv []string, out io.Writer) (int, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	sb := c.sandbox()
	sb.mu.Lock()
	mode := sb.net
	sb.mu.Unlock()
	if mode == netUnknown {
		mode = netRoot
	}
	for {
		cmd := c.command1(ctx, re, dir, argv, out, mode)
		err := cmd.Start()
		if err != nil && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL)) && mode != netNone {
			mode++ // try the next, weaker isolation
			continue
		}
		sb.mu.Lock()
		if sb.net == netUnknown || mode > sb.net {
			sb.net = mode
		}
		sb.mu.Unlock()
		if err != nil {
			return -1, false, fmt.Errorf("starting the check: %w", err)
		}
		c.limit(cmd.Process.Pid)
		err = cmd.Wait()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // stragglers of the group
		timedOut := ctx.Err() == context.DeadlineExceeded
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, false, nil
		case errors.As(err, &exit):
			return exit.ExitCode(), timedOut, nil
		case timedOut:
			return -1, true, nil
		}
		return -1, timedOut, err
	}
}

func (c *Checker) command1(ctx context.Context, re *runEnv, dir string, argv []string, out io.Writer, mode netMode) *exec.Cmd {
	env := re.env
	path, args := argv[0], argv
	if re.Filesystem {
		path, args = c.self, append([]string{c.self}, argv...)
		env = append(env[:len(env):len(env)], helperEnv+"=1", helperWriteEnv+"="+strings.Join(append(re.write, dir), ":"))
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Args, cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = args, dir, env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	switch mode {
	case netRoot:
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWNET
	case netUser:
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// limit sets the resource limits of a started check; its children inherit
// them.
func (c *Checker) limit(pid int) {
	cpu := uint64(c.opts.Timeout/time.Second) + 10
	for _, l := range []struct {
		res int
		val uint64
	}{
		{unix.RLIMIT_AS, c.opts.MemoryBytes},
		{unix.RLIMIT_CPU, cpu},
		{unix.RLIMIT_CORE, 0},
		{unix.RLIMIT_FSIZE, 1 << 30},
	} {
		unix.Prlimit(pid, l.res, &unix.Rlimit{Cur: l.val, Max: l.val}, nil)
	}
}

// RunHelper turns the process into the verify sandbox helper when it was
// started as one: it confines itself with Landlock to writing only the
// run's directories, then executes the check, and never returns. In any
// other process it returns at once. Call it first thing in main (and in
// TestMain of tests that verify with SelfHelper).
func RunHelper() {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	write := strings.Split(os.Getenv(helperWriteEnv), ":")
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, helperEnv+"=") && !strings.HasPrefix(kv, helperWriteEnv+"=") {
			env = append(env, kv)
		}
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "verify helper: no command")
		os.Exit(126)
	}
	runtime.LockOSThread() // Landlock and no_new_privs hold for this thread, which execs
	if err := confine(write); err != nil {
		fmt.Fprintln(os.Stderr, "verify helper: confining the check:", err)
		os.Exit(126)
	}
	err := syscall.Exec(os.Args[1], os.Args[1:], env)
	fmt.Fprintln(os.Stderr, "verify helper: exec:", err)
	os.Exit(126)
}

// confine restricts the calling thread, and what it executes, to writing
// beneath the given directories (and to /dev/null).
func confine(write []string) error {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return fmt.Errorf("landlock: %w", errno)
	}
	fileWrite := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE)
	handled := fileWrite | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	if abi >= 2 {
		handled |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		handled |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
		fileWrite |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	if abi >= 4 { // no TCP bind or connect at all, whatever the network namespace
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	add := func(path string, access uint64) error {
		dirfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		defer unix.Close(dirfd)
		rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(dirfd)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH,
			uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock rule %s: %w", path, errno)
		}
		return nil
	}
	for _, dir := range write {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if err := add(dir, handled); err != nil {
			return err
		}
	}
	if err := add(os.DevNull, fileWrite); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock restrict: %w", errno)
	}
	return nil
}

func chmodTree(dir string) {
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
