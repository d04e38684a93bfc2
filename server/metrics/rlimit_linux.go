package metrics

import "syscall"

// rlimit returns the soft limit of resource, and whether it could be read.
func rlimit(resource int) (float64, bool) {
	var l syscall.Rlimit
	if syscall.Getrlimit(resource, &l) != nil {
		return 0, false
	}
	return float64(l.Cur), true
}

const (
	rlimitNoFile = syscall.RLIMIT_NOFILE
	rlimitAS     = syscall.RLIMIT_AS
)
