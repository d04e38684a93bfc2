package verify

// helperEnv names the environment variable that makes a re-executed server
// binary the sandbox's first process (its value is a JSON helperSpec), and
// cacheProgEnv the one that makes it the go command's GOCACHEPROG.
const (
	helperEnv    = "REPO_MCP_VERIFY_HELPER"
	cacheProgEnv = "REPO_MCP_VERIFY_CACHEPROG"
	cacheProgArg = "repo-mcp-verify-cacheprog"
	noopArg      = "repo-mcp-verify-noop"
)

// Where things are in a check's view.
const (
	sbExport   = "/verify/export"
	sbHelper   = "/verify/helper"
	sbGoRoot   = "/verify/go"
	sbModCache = "/verify/modcache"
	sbCache    = "/verify/cache"
	sbWork     = "/work"
)

// helperSpec tells the helper what to set up, what to probe and what to
// run. Paths are as the check sees them.
type helperSpec struct {
	// Src is the export, read-only; Work is the check's writable tmpfs:
	// the helper copies Src to Work/src and runs the check there.
	Src, Work string
	// InPlace runs the check in Src itself, without the copy.
	InPlace bool
	// Require lists the properties without which the check must not run.
	Require []Property
	// ServerUID and ServerNS (namespace name -> inode) are the server's,
	// which the check's must differ from.
	ServerUID int
	ServerNS  map[string]uint64
	// UID and GID are what the helper becomes, when it starts as root.
	UID, GID int
	// Absent lists paths that must not exist in the check's view; ReadOnly
	// lists paths that must not be writable; Top is the only entries "/"
	// may hold.
	Absent, ReadOnly, Top []string
	Limits                limits
	// ReportFD is where the probe's JSON report is written.
	ReportFD int
	Argv     []string
	Env      []string
}

// limits are a check's resource limits.
type limits struct {
	Procs  uint64 // RLIMIT_NPROC: processes and threads of the sandbox uid
	Memory uint64 // RLIMIT_AS of each process
	CPU    uint64 // RLIMIT_CPU of each process, seconds
	File   uint64 // RLIMIT_FSIZE
	Files  uint64 // RLIMIT_NOFILE
	Disk   uint64 // the size of the tmpfs
}
