//go:build !linux

package workspace

// refWatch is Linux's inotify watch of the ref directories (see
// refwatch_linux.go); elsewhere there is none and the ref cache stamps
// every file it depends on at every call.
type refWatch struct{}

func newRefWatch() *refWatch { return nil }

func (w *refWatch) poll() (uint64, bool) { return 0, false }

func (w *refWatch) ensure([]string) bool { return false }

func (w *refWatch) close() {}
