// Package verify runs an operator's allowlisted checks (gofmt, go vet,
// go build, go test) on an exported source tree, as a stranger's code
// should be run: in a sandbox that shows it the export and the Go
// toolchain and nothing else, as another uid, without network, with its
// processes, memory, CPU time, disk and output bounded, and every one of
// its processes killed when the check ends.
//
//	c, err := verify.New(verify.Options{SelfHelper: true}) // once, at start
//	rep := c.Run(ctx, exportDir, []verify.Spec{{Name: "go_test", Packages: []string{"./..."}}})
//	// rep.Passed, rep.Checks[i].Output (the tail), rep.Isolation ...
//
// There is no free-form command: a check is one of the names in
// Options.Checks, and its only argument is a list of package patterns,
// each "./..." or a relative package path.
//
// # The sandbox
//
// Each check runs in its own bubblewrap sandbox (the bwrap command, as
// Flatpak and Linux coding agents use it; go test runs in two, see below):
//
//   - as a uid of its own on the host, leased from Options.UID to
//     Options.UID+Options.UIDCount-1 for as long as the sandbox lives (a
//     lock file per uid, so no two sandboxes of any server on the host
//     hold one at once): when the server runs as root, bubblewrap starts
//     the helper as root with only CAP_SETUID and CAP_SETGID, and the
//     helper becomes that uid, losing them, before anything of the check
//     runs; a server that is not root cannot switch
//     uid (bubblewrap then makes a user namespace, the checks keep the
//     server's uid, and the uid property does not hold);
//   - mount, PID, network, IPC and UTS namespaces; the network namespace
//     has loopback only, up, so httptest works on 127.0.0.1 and ::1 and
//     nothing else is reachable;
//   - a view of /verify/export (the export, read-only), /verify/go
//     (GOROOT), /verify/modcache (GOMODCACHE) and /verify/cache (the
//     shared build cache), all read-only but the cache as below, a
//     private /proc and /dev, three files of /etc, and /work: a tmpfs of
//     Options.DiskBytes where the check's copy of the export, home,
//     temporary directory and private build cache live;
//   - --die-with-parent and a PID namespace: when the check's first
//     process exits or is killed at the deadline, the namespace's init
//     dies and the kernel kills every process left in it, setsid() or not;
//   - resource limits set by the helper before it executes the check:
//     RLIMIT_NPROC (Options.MaxProcs; the kernel counts the processes of
//     a uid, whatever namespace they are in, which is why no two checks
//     share one: a fork bomb in one check leaves every other its whole
//     budget), RLIMIT_AS,
//     RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE, no core files.
//
// The sandbox's first process is the server's own binary (the helper;
// the binary calls [RunHelper] first thing in main and sets
// Options.SelfHelper). It closes every descriptor it inherited, copies the
// export onto the tmpfs, sets the limits, and probes the sandbox from the
// inside, trying what must fail: other namespaces than the server's,
// host paths that must be absent (/etc/shadow, the workspace, the export's
// host directory, the server's binary), writes to what must be read-only,
// interfaces other than loopback, loopback that does not work, a work
// directory that is not a bounded tmpfs, capabilities. The server checks
// the sandbox's uid from the outside. A report claims a property
// ([Property]) only when its probe saw it hold; a check whose sandbox
// lacks a property does not run unless the operator allowed running
// without it (Options.Unconfined), and the report says so.
//
// Why bubblewrap rather than namespaces, Landlock and seccomp set up by
// this package: bubblewrap is small, audited, packaged everywhere, and
// builds exactly this kind of view (a tmpfs root, binds, a reaping init in
// a PID namespace, loopback up in a fresh network namespace) from options
// a reviewer can read; doing the same by hand means a privileged clone
// and pivot_root in Go, where the runtime's threads make every step
// delicate. Landlock would only narrow a view of the host that the mount
// namespace already replaces, and a seccomp filter mostly guards the
// kernel surface that user namespaces expose; bubblewrap can take one
// (--seccomp) if an operator wants it later.
//
// # The build cache
//
// The go command reaches its build cache through a GOCACHEPROG that the
// helper serves. For gofmt, go vet and go build, which run the toolchain
// and no code of the repository, the shared cache (Options.BuildCache) is
// mounted writable: the go command keys every entry by the hash of its
// inputs, so what a repository compiles cannot stand in for another
// package's entry. For go test, which runs the repository's code, the
// shared cache is mounted read-only and new entries go to the check's
// tmpfs: nothing a test does outlives the check. So that go test does not
// compile again on every run what only tests import, it first runs in a
// sandbox of its own as go test -exec with the helper as the program,
// which builds every test binary and runs none, with the shared cache
// writable; the tests then run in a second sandbox. The shared cache
// belongs to root and Options.GID, the group of every sandbox uid, which
// may add entries and read all. It is never trimmed; an operator removes
// it when it grows too large.
//
// # Output
//
// go test runs with -json (its output streams, so a check killed at its
// deadline still returns its tail) and a -timeout shorter than the
// check's, so a hanging test ends in Go's own goroutine dump. The report
// keeps each check's tail, converted back to text and redacted of the
// secrets a run names ([WithSecrets]).
package verify
