//go:build linux

package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// RunHelper turns the process into a part of the verify sandbox when the
// sandbox started it as one, and never returns then; in any other process
// it returns at once. A binary that verifies calls it first thing in main
// (tests: in TestMain) and sets Options.SelfHelper: the sandbox
// re-executes that binary inside itself, where it copies the export,
// probes the isolation, sets the resource limits and executes the check,
// and serves the go command's build cache.
func RunHelper() {
	if len(os.Args) == 2 && os.Args[1] == cacheProgArg && os.Getenv(cacheProgEnv) != "" {
		os.Exit(serveCacheProg(os.Getenv(cacheProgEnv), os.Stdin, os.Stdout))
	}
	if len(os.Args) >= 2 && os.Args[1] == noopArg && os.Getenv(cacheProgEnv) != "" {
		os.Exit(0) // go test -exec: the test binary was built, and is not run
	}
	raw := os.Getenv(helperEnv)
	if raw == "" {
		return
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "verify helper: bad spec:", err)
		os.Exit(126)
	}
	os.Exit(runInit(&spec))
}

// runInit prepares the check, probes the sandbox, and executes the check
// when every required property held. It returns only on failure.
func runInit(spec *helperSpec) int {
	report := os.NewFile(uintptr(spec.ReportFD), "report")
	closeOtherFiles(spec.ReportFD)
	var r probeReport
	if err := setLimits(spec.Limits); err != nil {
		r.fail(Limits, "%v", err)
	}
	if os.Getuid() == 0 {
		if err := dropRoot(spec.UID, spec.GID); err != nil {
			r.fail(UID, "%v", err)
		}
	}
	dir := spec.Src
	if !spec.InPlace {
		dir = filepath.Join(spec.Work, "src")
		if err := copyTree(spec.Src, dir); err != nil {
			fmt.Fprintln(os.Stderr, "verify helper: copying the export:", err)
			return 126
		}
	}
	for _, d := range []string{"home", "tmp", "gocache"} {
		if err := os.MkdirAll(filepath.Join(spec.Work, d), 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "verify helper:", err)
			return 126
		}
	}
	probe(spec, &r)
	err := json.NewEncoder(report).Encode(r)
	report.Close()
	if err != nil || len(r.missing(allBut(spec.Require))) > 0 {
		return 125 // the server reads the report and says why
	}
	if err := os.Chdir(dir); err != nil {
		fmt.Fprintln(os.Stderr, "verify helper:", err)
		return 126
	}
	err = syscall.Exec(spec.Argv[0], spec.Argv, spec.Env)
	fmt.Fprintln(os.Stderr, "verify helper: exec:", err)
	return 126
}

// dropRoot makes every thread of the process the sandbox uid and gid,
// with no supplementary group; the capabilities go with uid 0.
func dropRoot(uid, gid int) error {
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("dropping groups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("becoming gid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("becoming uid %d: %w", uid, err)
	}
	return nil
}

// allBut returns the properties not in required: those the check may run
// without.
func allBut(required []Property) []Property {
	var rest []Property
	for _, p := range Properties {
		if !slices.Contains(required, p) {
			rest = append(rest, p)
		}
	}
	return rest
}

// closeOtherFiles closes every descriptor but stdin, stdout, stderr and
// keep: the sandbox was built from descriptors of host directories, and a
// descriptor is a way out of a mount namespace (openat(fd, "..")). The Go
// runtime's own poller (an epoll instance and its eventfd, which a
// package's init may already have made) stays: it reaches no file, and
// closing it under the runtime is fatal.
func closeOtherFiles(keep int) {
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 || fd == keep {
			continue
		}
		switch target, _ := os.Readlink("/proc/self/fd/" + e.Name()); target {
		case "anon_inode:[eventpoll]", "anon_inode:[eventfd]":
			continue
		}
		unix.Close(fd)
	}
}

func setLimits(l limits) error {
	for _, lim := range []struct {
		name string
		res  int
		val  uint64
	}{
		{"processes", unix.RLIMIT_NPROC, l.Procs},
		{"address space", unix.RLIMIT_AS, l.Memory},
		{"CPU time", unix.RLIMIT_CPU, l.CPU},
		{"file size", unix.RLIMIT_FSIZE, l.File},
		{"open files", unix.RLIMIT_NOFILE, l.Files},
		{"core size", unix.RLIMIT_CORE, 0},
	} {
		want := unix.Rlimit{Cur: lim.val, Max: lim.val}
		if err := unix.Setrlimit(lim.res, &want); err != nil {
			return fmt.Errorf("setting the %s limit: %w", lim.name, err)
		}
		var got unix.Rlimit
		if err := unix.Getrlimit(lim.res, &got); err != nil || got != want {
			return fmt.Errorf("the %s limit did not hold", lim.name)
		}
	}
	return nil
}

// probe tries, from inside the check's sandbox, what must fail there, and
// records which properties held.
func probe(spec *helperSpec, r *probeReport) {
	for _, p := range []struct {
		prop  Property
		check func(*helperSpec, *probeReport)
	}{
		{UID, probeUID}, {Filesystem, probeFilesystem}, {PID, probePID}, {Network, probeNetwork}, {Limits, probeLimits},
	} {
		p.check(spec, r)
		if r.Failed[p.prop] == "" {
			r.Held = append(r.Held, p.prop)
		}
	}
}

func probeUID(spec *helperSpec, r *probeReport) {
	uid := os.Getuid()
	switch {
	case uid == 0 || os.Geteuid() == 0 || uid == spec.ServerUID:
		r.fail(UID, "checks would run as uid %d, the server's or root (a server not run as root cannot switch uid)", uid)
	case nsInode("user") != spec.ServerNS["user"]:
		// In a user namespace the uid seen here is not the host's.
		r.fail(UID, "checks run in a user namespace as the server's uid (the server can switch uid only when it runs as root)")
	case uid != spec.UID:
		r.fail(UID, "checks would run as uid %d, not %d", uid, spec.UID)
	}
	if capEff() != 0 || capPrm() != 0 {
		r.fail(UID, "checks would hold capabilities")
	}
}

// capEff and capPrm return the process's effective and permitted
// capability sets (all ones when they cannot be read).
func capEff() uint64 { return capSet("CapEff:") }
func capPrm() uint64 { return capSet("CapPrm:") }

func capSet(field string) uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ^uint64(0)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err == nil {
				return n
			}
		}
	}
	return ^uint64(0)
}

// nsInode returns the inode of one of the process's namespaces.
func nsInode(name string) uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/"+name, &st) != nil {
		return 0
	}
	return st.Ino
}

func probeFilesystem(spec *helperSpec, r *probeReport) {
	if ino := nsInode("mnt"); ino == 0 || ino == spec.ServerNS["mnt"] {
		r.fail(Filesystem, "checks would share the server's mount namespace")
		return
	}
	for _, p := range spec.Absent {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			r.fail(Filesystem, "%s is visible to checks", p)
		}
	}
	if top, err := os.ReadDir("/"); err != nil {
		r.fail(Filesystem, "the root cannot be listed: %v", err)
	} else {
		for _, e := range top {
			if !slices.Contains(spec.Top, e.Name()) {
				r.fail(Filesystem, "/%s is visible to checks", e.Name())
			}
		}
	}
	for _, p := range spec.ReadOnly {
		f, err := os.CreateTemp(p, ".probe-")
		if err == nil {
			f.Close()
			os.Remove(f.Name())
			r.fail(Filesystem, "%s is writable", p)
		}
	}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		target, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if err != nil || !strings.HasPrefix(target, "/") || target == os.DevNull || target == fmt.Sprintf("/proc/%d/fd", os.Getpid()) {
			continue // pipes, sockets, the runtime's poller, this listing
		}
		r.fail(Filesystem, "descriptor %s of the host (%s) is open in the check", fd.Name(), target)
	}
}

func probePID(spec *helperSpec, r *probeReport) {
	if ino := nsInode("pid"); ino == 0 || ino == spec.ServerNS["pid"] {
		r.fail(PID, "checks would share the server's PID namespace")
		return
	}
	procs, _ := os.ReadDir("/proc")
	n := 0
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err == nil {
			n++
		}
	}
	if n > 3 { // the namespace's init, this helper, and nothing else
		r.fail(PID, "%d processes are visible to checks", n)
	}
}

func probeNetwork(spec *helperSpec, r *probeReport) {
	if ino := nsInode("net"); ino == 0 || ino == spec.ServerNS["net"] {
		r.fail(Network, "checks would share the server's network namespace")
		return
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		r.fail(Network, "listing interfaces: %v", err)
		return
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagLoopback == 0 {
			r.fail(Network, "checks see the interface %s", ifc.Name)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		if err := loopbackWorks(addr); err != nil {
			r.fail(Network, "loopback %s does not work: %v", addr, err)
		}
	}
}

// loopbackWorks listens on addr and connects to itself.
func loopbackWorks(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return err
	}
	c.Close()
	return nil
}

func probeLimits(spec *helperSpec, r *probeReport) {
	var st unix.Statfs_t
	if err := unix.Statfs(spec.Work, &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		r.fail(Limits, "the check's writable directory is not a tmpfs of bounded size")
		return
	}
	if size := st.Blocks * uint64(st.Bsize); size > spec.Limits.Disk+uint64(st.Bsize) {
		r.fail(Limits, "the check's tmpfs holds %d bytes, more than %d", size, spec.Limits.Disk)
	}
	if capEff() != 0 {
		r.fail(Limits, "checks hold capabilities that lift the limits")
	}
}

// copyTree copies the regular files and directories of src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(p, target, info.Mode().Perm())
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
