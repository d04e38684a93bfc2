//go:build !linux

package metrics

// The process_* series come from /proc, as the Prometheus client's process
// collector read them: elsewhere the limits are left out with them.
func rlimit(int) (float64, bool) { return 0, false }

const (
	rlimitNoFile = 0
	rlimitAS     = 0
)
